import Foundation

/// The grocery list app's dispatch queues: a UI queue standing in for the main queue, a serial
/// network queue for the simulated server and a disk queue that keeps the list.
///
/// Short work the app starts (a block on a queue, a `Task` that syncs the list) joins
/// ``pendingWork``, so that ``drain()`` can wait until it is done. The view models' `for await`
/// loops never end on their own, so the app waits for what they show with ``waitUntil(_:)``.
final class GroceryQueues: @unchecked Sendable {
    let ui = DispatchQueue(label: "grocery.ui")
    let network = DispatchQueue(label: "grocery.network")
    let disk = DispatchQueue(label: "grocery.disk")
    /// Work on the app's queues, and short tasks, that have not finished yet.
    let pendingWork = DispatchGroup()

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

    /// Starts a short task, counted as pending work until it returns.
    @discardableResult
    func task(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        pendingWork.enter()
        return Task {
            await work()
            self.pendingWork.leave()
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

    /// Waits until `condition`, read on the UI queue, holds: what a `for await` loop shows
    /// arrives when the cooperative pool gets to it. Returns `false` after ten seconds.
    func waitUntil(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if onUI(condition) { return true }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return false
    }
}
