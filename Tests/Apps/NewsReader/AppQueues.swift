import Dispatch

/// The app's dispatch queues: a UI queue standing in for the main queue, a search queue for
/// debouncing, a network queue for the simulated backend and a clock queue for the ticker.
///
/// Every block the app schedules joins ``pendingWork``, so that ``drain()`` can wait until the
/// app is quiet before it is torn down.
final class AppQueues: Sendable {
    let ui = DispatchQueue(label: "news.ui")
    let search = DispatchQueue(label: "news.search")
    let network = DispatchQueue(label: "news.network")
    let clock = DispatchQueue(label: "news.clock")
    /// Work on the app's queues that has not finished yet.
    let pendingWork = DispatchGroup()

    /// Scheduler options that make `debounce` and `receive(on:)` count their blocks as
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
        for queue in [network, search, ui, clock] { queue.sync {} }
        return pendingWork.wait(timeout: .now() + 10) == .success
    }
}
