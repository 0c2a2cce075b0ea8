import Foundation

/// The backup app's dispatch queues: a UI queue standing in for the main queue, a disk queue
/// for the library scan, an upload queue for the uploader, a network queue for the simulated
/// server, a thumbnails queue for rendering, and an activity queue that serializes the
/// activity log. Timers run on a thread of their own with a run loop, as `Timer.publish` needs.
///
/// Every block the app schedules joins ``pendingWork``, so that ``drain()`` can wait until the
/// app is quiet.
final class BackupQueues: @unchecked Sendable {
    let ui = DispatchQueue(label: "backup.ui")
    let disk = DispatchQueue(label: "backup.disk")
    let upload = DispatchQueue(label: "backup.upload")
    let network = DispatchQueue(label: "backup.network")
    let thumbnails = DispatchQueue(label: "backup.thumbnails")
    let activity = DispatchQueue(label: "backup.activity")
    /// Work on the app's queues that has not finished yet.
    let pendingWork = DispatchGroup()
    /// The thread whose run loop `Timer.publish` fires on.
    let timerThread = TimerThread()

    /// Scheduler options that make `receive(on:)`, `subscribe(on:)` and `delay` count their
    /// blocks as ``pendingWork``.
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
        for queue in [disk, upload, network, thumbnails, activity, ui] { queue.sync {} }
        return pendingWork.wait(timeout: .now() + 10) == .success
    }

    /// Stops the timer thread, once every timer on it is cancelled.
    func stop() {
        timerThread.finish()
    }
}
