import Foundation

/// The account settings app's dispatch queues: a UI queue standing in for the main queue, a
/// serial network queue for the simulated server and a disk queue that keeps drafts.
///
/// Every block the app schedules joins ``pendingWork``, so that ``drain()`` can wait until the
/// app is quiet.
final class SettingsQueues: @unchecked Sendable {
    let ui = DispatchQueue(label: "settings.ui")
    let network = DispatchQueue(label: "settings.network")
    let disk = DispatchQueue(label: "settings.disk")
    /// Work on the app's queues that has not finished yet.
    let pendingWork = DispatchGroup()

    /// Scheduler options that make `receive(on:)` and `debounce` count their blocks as
    /// ``pendingWork``.
    var schedulerOptions: DispatchQueue.SchedulerOptions {
        DispatchQueue.SchedulerOptions(group: pendingWork)
    }

    /// Runs `work` on `queue` after `delay`, counted as pending work.
    func run(on queue: DispatchQueue, after delay: DispatchTimeInterval? = nil, _ work: @escaping @Sendable () -> Void) {
        pendingWork.enter()
        let block: @Sendable () -> Void = {
            work()
            self.pendingWork.leave()
        }
        if let delay {
            queue.asyncAfter(deadline: .now() + delay, execute: block)
        } else {
            queue.async(execute: block)
        }
    }

    /// Runs `work` on the UI queue and waits for it, as a user's tap would.
    func onUI<Result>(_ work: () -> Result) -> Result {
        ui.sync(execute: work)
    }

    /// Waits until every piece of pending work is done, then lets each queue finish what it
    /// has. Returns `false` if that took more than ten seconds.
    func drain() -> Bool {
        for _ in 0..<2 {
            guard pendingWork.wait(timeout: .now() + 10) == .success else { return false }
            for queue in [network, disk, ui] { queue.sync {} }
        }
        return pendingWork.wait(timeout: .now() + 10) == .success
    }
}
