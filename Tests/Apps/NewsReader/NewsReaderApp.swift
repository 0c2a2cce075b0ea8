import AppMutations
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A small news reader written the way real apps are, to try Lifeline on code that was not
/// written for it: a search view model (debounce → removeDuplicates → flatMap into a Future →
/// receive(on:) → sink), a clock on a DispatchSource ticker, an article store shared through
/// `share()` with an unread badge, a profile request, a settings peek and a hand-written
/// analytics subscriber, across four queues.
///
/// It has exactly three bugs, each documented where it is written:
/// - ``ArticleStore``: a sink that captures `self` strongly, stored in `self` (a retain cycle;
///   the store and its pipeline are alive at the end);
/// - ``AnalyticsSubscriber``: a subscriber that never keeps its subscription (the
///   subscription dies, the upload's answer never arrives);
/// - ``HomeScreenModel/watchBadgeWhileLoading(_:)``: a token stored in a local set that dies at
///   the end of the function.
///
/// Everything else is correct, including the things that look like bugs: a deliberate
/// `cancel()` right after subscribing, and a strong-`self` sink on a request that finishes.
public final class NewsReaderApp: @unchecked Sendable {
    private let queues = AppQueues()
    private let backend: NewsBackend
    private var search: SearchViewModel?
    private var clock: ClockModel?
    private var store: ArticleStore?
    private var home: HomeScreenModel?
    private var analytics: AnalyticsSubscriber?

    /// Builds the app's models and subscribes their pipelines.
    ///
    /// - Parameter mutation: a slip to seed into the app (none by default): a strong `self` in
    ///   the search screen's sink, a dropped token for the home screen's badge, or the clock's
    ///   token released when it starts. The app has no hand-written subscriber that could stall
    ///   and no `flatMap` whose outer publisher sends three values, so the other kinds change
    ///   nothing.
    public init(mutation: AppMutation = .none) {
        backend = NewsBackend(queues: queues)
        let store = ArticleStore(backend: backend)
        self.store = store
        search = SearchViewModel(backend: backend, queues: queues, mutation: mutation)
        clock = ClockModel(queues: queues, mutation: mutation)
        home = HomeScreenModel(store: store, mutation: mutation)
        analytics = AnalyticsSubscriber()
    }

    /// Runs about a third of a second of activity: the reader types two queries, the front
    /// page refreshes, the clock ticks, analytics uploads, the profile loads. Returns once
    /// every queue is quiet.
    ///
    /// - Returns: `false` if the app's queues did not go quiet within ten seconds.
    @discardableResult
    public func run() -> Bool {
        guard let search, let clock, let store, let home, let analytics else { return false }
        clock.start(every: .milliseconds(20))
        for prefix in ["s", "sw", "swi", "swift"] { search.query.send(prefix) }
        pause()
        search.query.send("swift")
        pause()
        search.query.send("combine")
        // Before the refresh: its articles must not arrive while the badge's token still lives,
        // whatever the machine's load.
        home.watchBadgeWhileLoading(store)
        store.refresh.send()
        _ = home.peekSettings()
        home.loadProfile(from: backend)
        backend.upload(["launch", "search", "refresh"]).subscribe(analytics)
        pause()
        store.refresh.send()
        pause()
        home.status.send("ready")
        clock.stop(on: queues.clock)
        return queues.drain()
    }

    /// Lets the screens go, as the app does when the reader leaves them. The article store
    /// stays alive: that is its bug.
    public func tearDown() {
        search = nil
        clock = nil
        home = nil
        store = nil
        analytics = nil
    }

    private func pause() {
        _ = queues.drain()
        Thread.sleep(forTimeInterval: 0.05)
    }
}
