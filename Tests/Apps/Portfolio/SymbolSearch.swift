import AppMutations
import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The symbol search field: each query starts a lookup, and `switchToLatest()` drops the
/// answer of a lookup a newer query replaced. Correct: the token is stored and the sink holds
/// `self` weakly.
final class SymbolSearch {
    let query = PassthroughSubject<String, Never>()
    private(set) var matches: [String] = []
    private var cancellables = Set<AnyCancellable>()

    init(queues: PortfolioQueues, mutation: AppMutation = .none) {
        let found = query
            .removeDuplicates()
            .map { text in Self.lookUp(text, queues: queues) }
            .switchToLatest()
            .receive(on: queues.ui, options: queues.schedulerOptions)
        switch mutation {
        case .strongSelf:
            found
                .sink { found in self.matches = found } // seeded: strong-self
                .store(in: &cancellables)
        case .droppedStore:
            _ = found.sink { [weak self] found in self?.matches = found } // seeded: dropped-store
        default:
            found
                .sink { [weak self] found in self?.matches = found }
                .store(in: &cancellables)
        }
    }

    /// The symbols starting with `text`, found on the trading queue.
    private static func lookUp(_ text: String, queues: PortfolioQueues) -> Future<[String], Never> {
        Future { promise in
            queues.run(on: queues.trading, after: .milliseconds(2)) {
                promise(.success(["AAPL", "AMZN", "MSFT", "NVDA"].filter { $0.hasPrefix(text.uppercased()) }))
            }
        }
    }
}
