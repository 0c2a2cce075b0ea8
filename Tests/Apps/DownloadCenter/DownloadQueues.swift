import Foundation

/// The download center's dispatch queues: a UI queue standing in for the main queue, a serial
/// network queue for the simulated server and a serial disk queue that writes files, and three
/// connection queues on which chunks of a large file are fetched in parallel.
///
/// Every block the app schedules joins ``pendingWork``, so that ``drain()`` can wait until the
/// app is quiet.
final class DownloadQueues: @unchecked Sendable {
    let ui = DispatchQueue(label: "downloads.ui")
    let network = DispatchQueue(label: "downloads.network")
    let disk = DispatchQueue(label: "downloads.disk")
    /// The server connections chunks are fetched on, in parallel: serial queues of their own.
    let connections = (1...3).map { DispatchQueue(label: "downloads.connection\($0)") }
    /// Work on the app's queues that has not finished yet.
    let pendingWork = DispatchGroup()

    /// Scheduler options that make `receive(on:)`, `subscribe(on:)`, `delay` and `timeout`
    /// count their blocks as ``pendingWork``.
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
        for queue in [network, disk, ui] + connections { queue.sync {} }
        return pendingWork.wait(timeout: .now() + 10) == .success
    }
}
