import AppMutations
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The home screen: an unread badge fed by the shared articles, a status line, the reader's
/// profile and a settings peek.
final class HomeScreenModel: @unchecked Sendable {
    let status = CurrentValueSubject<String, Never>("idle")
    let settings = CurrentValueSubject<Bool, Never>(true)
    private(set) var badge = 0
    private(set) var statusText = ""
    private(set) var profileName: String?
    private var cancellables = Set<AnyCancellable>()

    init(store: ArticleStore, mutation: AppMutation = .none) {
        let badge = store.articles.map(\.count)
        if mutation != .droppedStore {
            badge
                .sink { [weak self] in self?.badge = $0 }
                .store(in: &cancellables)
        } else {
            _ = badge.sink { [weak self] in self?.badge = $0 } // seeded: dropped-store
        }
        status
            .sink { [weak self] in self?.statusText = $0 }
            .store(in: &cancellables)
    }

    /// The bug: the badge's extra pipeline is stored in a local set that dies when this
    /// function returns, so it is cancelled before any article arrives.
    func watchBadgeWhileLoading(_ store: ArticleStore) {
        var tokens = Set<AnyCancellable>()
        store.articles
            .filter { !$0.isEmpty }
            .sink { [weak self] in self?.badge = $0.count }
            .store(in: &tokens)
        status.send("loading")
    }

    /// Correct: reads the current setting and cancels on purpose right away.
    func peekSettings() -> Bool {
        var value = false
        let peek = settings.sink { value = $0 }
        peek.cancel()
        return value
    }

    /// Correct: the sink captures `self` strongly, but the request finishes, and then the sink
    /// lets go of its closures, so the loop ends with the request.
    func loadProfile(from backend: NewsBackend) {
        backend.fetchProfile()
            .sink { name in self.profileName = name }
            .store(in: &cancellables)
    }
}
