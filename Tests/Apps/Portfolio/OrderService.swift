import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// Places orders with a flaky broker: the first attempt of every order fails, and `retry(2)`
/// places it again. Correct: the token is kept until the order completes.
///
/// The broker answers on the trading queue, so the order is also subscribed there
/// (`subscribe(on:)`). Without it, Lifeline found `concurrent-delivery` on `Retry.Inner`: a
/// refusal could arrive on the trading queue while the subscribe was still handing the
/// subscription over on the main thread.
final class OrderService {
    /// Why the broker refused an order.
    struct Refused: Error {}

    private let queues: PortfolioQueues
    private var attempts = 0
    private(set) var confirmations: [String] = []
    private var orders = Set<AnyCancellable>()

    init(queues: PortfolioQueues) {
        self.queues = queues
    }

    /// Buys `quantity` of `symbol`; the confirmation arrives on the trading queue.
    func buy(_ quantity: Int, of symbol: String) {
        let queues = self.queues
        Deferred { [weak self] in
            Future<String, Refused> { promise in
                self?.attempts += 1
                let refused = (self?.attempts ?? 0) % 2 == 1
                queues.run(on: queues.trading, after: .milliseconds(3)) {
                    promise(refused ? .failure(Refused()) : .success("\(quantity) \(symbol)"))
                }
            }
        }
        .subscribe(on: queues.trading, options: queues.schedulerOptions)
        .retry(2)
        .sink(
            receiveCompletion: { _ in },
            receiveValue: { [weak self] confirmation in self?.confirmations.append(confirmation) }
        )
        .store(in: &orders)
    }
}
