import Dispatch

/// The app's dispatch queues: a UI queue standing in for the main queue, a feed queue for the
/// quote ticker and a trading queue for orders.
///
/// Every block the app schedules joins ``pendingWork``, so that ``drain()`` can wait until the
/// app is quiet before it is torn down.
final class PortfolioQueues: Sendable {
    let ui = DispatchQueue(label: "portfolio.ui")
    let feed = DispatchQueue(label: "portfolio.feed")
    let trading = DispatchQueue(label: "portfolio.trading")
    /// Work on the app's queues that has not finished yet.
    let pendingWork = DispatchGroup()

    /// Scheduler options that make `receive(on:)` and `subscribe(on:)` count their blocks as
    /// ``pendingWork``.
    var schedulerOptions: DispatchQueue.SchedulerOptions {
        DispatchQueue.SchedulerOptions(group: pendingWork)
    }

    /// Runs `work` on `queue` after `delay`, counted as pending work.
    func run(on queue: DispatchQueue, after delay: DispatchTimeInterval, _ work: @escaping @Sendable () -> Void) {
        pendingWork.enter()
        queue.asyncAfter(deadline: .now() + delay) {
            work()
            self.pendingWork.leave()
        }
    }

    /// Waits until every piece of pending work is done, then lets each queue finish what it
    /// has. Returns `false` if that took more than ten seconds.
    func drain() -> Bool {
        guard pendingWork.wait(timeout: .now() + 10) == .success else { return false }
        for queue in [trading, feed, ui] { queue.sync {} }
        return pendingWork.wait(timeout: .now() + 10) == .success
    }
}
