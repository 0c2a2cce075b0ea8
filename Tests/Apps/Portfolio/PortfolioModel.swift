#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The portfolio total, kept up to date from the feed.
///
/// The bug: `assign(to:on: self)` holds `self` strongly, and the token is stored in `self`,
/// so the model and its pipeline keep each other alive after the app lets the model go.
final class PortfolioModel {
    var total = 0
    private let holdings = ["AAPL": 10, "NVDA": 4]
    private var cancellables = Set<AnyCancellable>()

    init(feed: QuoteFeed) {
        let holdings = self.holdings
        feed.quotes
            .compactMap { quote in holdings[quote.symbol].map { $0 * quote.price } }
            .collect(2)
            .map { $0.reduce(0, +) }
            .assign(to: \.total, on: self)
            .store(in: &cancellables)
    }
}
