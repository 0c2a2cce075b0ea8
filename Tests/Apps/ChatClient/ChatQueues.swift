import Dispatch

/// The chat client's dispatch queues: a UI queue standing in for the main queue, a network
/// queue for the simulated server, a typing queue for the draft's throttle and the contact
/// search's debounce, a storage queue for the history on disk, and a connection queue for the
/// heartbeat.
///
/// Every block the app schedules joins ``pendingWork``, so that ``drain()`` can wait until the
/// app is quiet before it is torn down.
final class ChatQueues: Sendable {
    let ui = DispatchQueue(label: "chat.ui")
    let network = DispatchQueue(label: "chat.network")
    let typing = DispatchQueue(label: "chat.typing")
    let storage = DispatchQueue(label: "chat.storage")
    let connection = DispatchQueue(label: "chat.connection")
    /// Work on the app's queues that has not finished yet.
    let pendingWork = DispatchGroup()

    /// Scheduler options that make `throttle`, `debounce`, `timeout`, `receive(on:)` and
    /// `subscribe(on:)` count their blocks as ``pendingWork``.
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
        for queue in [network, storage, typing, connection, ui] { queue.sync {} }
        return pendingWork.wait(timeout: .now() + 10) == .success
    }
}
