import Dispatch

#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A serial dispatch queue with a fixed label that stories can hold back and then wait for, so
/// that work crossing threads happens in the same order on every run.
///
/// Each story makes its own queues. While a queue is held (``hold()``), work sent to it waits;
/// the story does its part on the calling thread, then calls ``releaseAndWait()``, which lets the
/// queue run and returns once every piece of work tracked by ``pendingWork`` is done. Combine
/// operators join that tracking through ``schedulerOptions``, which carries the group to every
/// block they schedule, including blocks scheduled from inside other scheduled blocks.
final class SampleQueue: Sendable {
    /// How long a story waits for a queue before it reports a time-out.
    static let timeout: DispatchTimeInterval = .seconds(10)

    private static let labelKey = DispatchSpecificKey<String>()

    /// The queue's label, such as `lifeline.samples.background`.
    let label: String
    /// The queue itself.
    let queue: DispatchQueue
    /// Work sent to the queue that ``releaseAndWait()`` waits for.
    let pendingWork = DispatchGroup()

    /// Creates a serial queue whose code can tell, through ``currentPlace``, that it runs on it.
    init(label: String) {
        self.label = label
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.labelKey, value: label)
    }

    /// Scheduler options that make `receive(on:options:)` and `subscribe(on:options:)` count
    /// their scheduled blocks as ``pendingWork``.
    var schedulerOptions: DispatchQueue.SchedulerOptions {
        DispatchQueue.SchedulerOptions(group: pendingWork)
    }

    /// Stops the queue from starting new work until ``releaseAndWait()``.
    func hold() {
        queue.suspend()
    }

    /// Lets a held queue run and waits until its pending work is done.
    ///
    /// - Returns: `false` if the work did not finish within ``timeout``.
    func releaseAndWait() -> Bool {
        queue.resume()
        return pendingWork.wait(timeout: .now() + Self.timeout) == .success
    }

    /// Where the current code runs, for printing: `queue <label>` on a sample queue, otherwise
    /// `the calling thread`.
    static var currentPlace: String {
        DispatchQueue.getSpecific(key: labelKey).map { "queue \($0)" } ?? "the calling thread"
    }
}
