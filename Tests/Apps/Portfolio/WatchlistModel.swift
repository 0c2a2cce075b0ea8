import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The watchlist screen: each watched symbol's last price, the AAPL/MSFT spread from two
/// zipped streams, and a banner with the first quote of the session.
///
/// Correct throughout: every token is stored, every sink captures `self` weakly. `first()`
/// cancels the shared feed under the banner after its first value, which is what `first()`
/// is for, and `prefix(untilOutputFrom:)` cancels the spread when the market closes.
final class WatchlistModel {
    private(set) var lastPrices: [String: Int] = [:]
    private(set) var spreads: [Int] = []
    private(set) var banner: String?
    /// Sent when the market closes: the spread stops.
    let marketClosed = PassthroughSubject<Void, Never>()
    private var cancellables = Set<AnyCancellable>()

    init(feed: QuoteFeed, queues: PortfolioQueues) {
        feed.quotes
            .filter { $0.symbol != "NVDA" }
            .scan([String: Int]()) { prices, quote in prices.merging([quote.symbol: quote.price]) { $1 } }
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] prices in self?.lastPrices = prices }
            .store(in: &cancellables)

        let apple = feed.quotes.filter { $0.symbol == "AAPL" }.map(\.price)
        let microsoft = feed.quotes.filter { $0.symbol == "MSFT" }.map(\.price)
        Publishers.Zip(apple, microsoft)
            .map { $1 - $0 }
            .prefix(untilOutputFrom: marketClosed)
            .sink { [weak self] spread in self?.spreads.append(spread) }
            .store(in: &cancellables)

        feed.quotes
            .first()
            .map { "Market open: \($0)" }
            .sink { [weak self] text in self?.banner = text }
            .store(in: &cancellables)
    }
}
