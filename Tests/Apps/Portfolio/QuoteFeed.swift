import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A live price feed: a DispatchSource timer on the feed queue sends a quote per tick for each
/// symbol, and every screen shares one upstream through `share()`.
final class QuoteFeed {
    private let ticks = PassthroughSubject<Quote, Never>()
    /// The quotes, shared: every subscriber gets the same quotes from one upstream.
    let quotes: AnyPublisher<Quote, Never>
    private let queues: PortfolioQueues
    private var timer: DispatchSourceTimer?
    private var tick = 0

    init(queues: PortfolioQueues) {
        self.queues = queues
        quotes = ticks.share().eraseToAnyPublisher()
    }

    /// Starts ticking every `interval` on the feed queue.
    func start(every interval: DispatchTimeInterval) {
        let timer = DispatchSource.makeTimerSource(queue: queues.feed)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.sendTick() }
        queues.pendingWork.enter()
        timer.setCancelHandler { [queues] in queues.pendingWork.leave() }
        timer.resume()
        self.timer = timer
    }

    /// Stops the timer. The feed does not finish: like a real feed, it pauses, and its
    /// pipelines stay subscribed until their owners cancel them.
    func stop() {
        queues.feed.sync {
            timer?.cancel()
            timer = nil
        }
    }

    private func sendTick() {
        tick += 1
        for (symbol, base) in [("AAPL", 180), ("MSFT", 410), ("NVDA", 120)] {
            ticks.send(Quote(symbol: symbol, price: base + tick % 7))
        }
    }
}
