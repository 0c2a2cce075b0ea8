import AppMutations
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A stock portfolio app written the way real apps are, the second app Lifeline is tried on
/// (after the news reader): a quote feed on a DispatchSource timer, shared with `share()`; a
/// watchlist with `scan`, `Zip`, `prefix(untilOutputFrom:)` and `first()`; a portfolio total
/// through `collect` and `assign(to:on:)`; orders through `Deferred`, `Future` and `retry`; a
/// symbol search with `switchToLatest()`; hand-written paced subscribers; and a hand-written
/// publisher of yesterday's quotes, across three queues.
///
/// It has exactly two bugs, each documented where it is written:
/// - ``PortfolioModel``: `assign(to:on: self)` stored in `self` (a retain cycle; the model and
///   its pipeline are alive at the end);
/// - ``LegacyQuotePublisher``: its subscription sends three quotes to a subscriber that asked
///   for one (demand exceeded).
///
/// Everything else is correct, including what cancels early on purpose: `first()`,
/// `prefix(untilOutputFrom:)`, `switchToLatest()` dropping an old lookup, `retry` resubscribing
/// after a failure, and a paced subscriber cancelled by hand.
public final class PortfolioApp: @unchecked Sendable {
    private let queues = PortfolioQueues()
    private let feed: QuoteFeed
    private var watchlist: WatchlistModel?
    private var portfolio: PortfolioModel?
    private var orders: OrderService?
    private var search: SymbolSearch?
    private var ticker: PacedQuoteSubscriber?
    private var export: PacedQuoteSubscriber?

    /// Builds the app's models and subscribes their pipelines.
    ///
    /// - Parameter mutation: a slip to seed into the app (none by default): a strong `self` in
    ///   the symbol search's sink, a dropped token for it, or a ticker that stops asking for
    ///   quotes. The app has no `flatMap` and no token it could release early, so the
    ///   other kinds change nothing.
    public init(mutation: AppMutation = .none) {
        feed = QuoteFeed(queues: queues)
        watchlist = WatchlistModel(feed: feed, queues: queues)
        portfolio = PortfolioModel(feed: feed)
        orders = OrderService(queues: queues)
        search = SymbolSearch(queues: queues, mutation: mutation)
        let ticker = PacedQuoteSubscriber(wantsMore: true, mutation: mutation)
        feed.quotes.filter { $0.symbol == "NVDA" }.subscribe(ticker)
        self.ticker = ticker
        export = PacedQuoteSubscriber(wantsMore: false)
    }

    /// Runs about a fifth of a second of trading: the feed ticks, the user searches, buys twice
    /// and exports yesterday's quotes, the market closes. Returns once every queue is quiet.
    ///
    /// - Returns: `false` if the app's queues did not go quiet within ten seconds.
    @discardableResult
    public func run() -> Bool {
        guard let watchlist, let orders, let search, let ticker, let export else { return false }
        feed.start(every: .milliseconds(15))
        for text in ["a", "aa", "aap"] { search.query.send(text) }
        orders.buy(5, of: "AAPL")
        pause()
        orders.buy(2, of: "NVDA")
        LegacyQuotePublisher(closing: [
            Quote(symbol: "AAPL", price: 179), Quote(symbol: "MSFT", price: 409), Quote(symbol: "NVDA", price: 121),
        ]).subscribe(export)
        pause()
        ticker.cancel()
        watchlist.marketClosed.send()
        pause()
        feed.stop()
        return queues.drain()
    }

    /// Lets the screens go, as the app does when the user leaves them. The portfolio model
    /// stays alive: that is its bug.
    public func tearDown() {
        watchlist = nil
        portfolio = nil
        orders = nil
        search = nil
        ticker = nil
        export = nil
    }

    /// Lets the feed tick a few times, and the queues catch up.
    private func pause() {
        Thread.sleep(forTimeInterval: 0.06)
        for queue in [queues.trading, queues.feed, queues.ui] { queue.sync {} }
    }
}
