#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The front page's articles, refreshed on demand and shared between the store and the unread
/// badge.
///
/// The bug: the store's sink captures `self` strongly and its token is stored in `self`, so the
/// store, its token and the sink hold each other and the store outlives the screen.
final class ArticleStore: @unchecked Sendable {
    let refresh = PassthroughSubject<Void, Never>()
    let articles: Publishers.Share<Publishers.FlatMap<Future<[Article], Never>, PassthroughSubject<Void, Never>>>
    private(set) var current: [Article] = []
    private var cancellables = Set<AnyCancellable>()

    init(backend: NewsBackend) {
        articles = refresh.flatMap { backend.fetchArticles() }.share()
        articles
            .sink { articles in self.current = articles }
            .store(in: &cancellables)
    }
}
