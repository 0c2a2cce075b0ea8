import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The inbox: the pinned chats' previews, shown once both histories are read (`Zip`), and
/// every incoming message merged into one stream for the unread badge.
///
/// OpenCombine has no `merge`, so the streams are merged the way apps did before it:
/// `[a, b].publisher.flatMap { $0 }`.
///
/// Correct: the preview's token is stored and its sink holds `self` weakly; the badge is a
/// subscriber that keeps its own subscription, and the app cancels it when it closes.
final class InboxModel {
    private(set) var pinnedPreview = ""
    let badge = UnreadBadge()
    private var cancellables = Set<AnyCancellable>()

    init(server: ChatServer, queues: ChatQueues) {
        Publishers.Zip(server.history(of: "ada"), server.history(of: "grace"))
            .map { ada, grace in "\(ada.last?.text ?? "") · \(grace.last?.text ?? "")" }
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] preview in self?.pinnedPreview = preview }
            .store(in: &cancellables)

        server.incoming.keys.sorted().compactMap { server.incoming[$0] }
            .publisher
            .flatMap { $0 }
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .subscribe(badge)
    }

    /// Stops the badge, as the app does when it closes.
    func close() {
        badge.cancel()
    }
}
