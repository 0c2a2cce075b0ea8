import Dispatch
import Foundation
import Synchronization

/// A thread of its own that grows a log ahead of the threads writing it, so that they never
/// wait while the kernel hands over the file's fresh pages.
///
/// A fresh page of a shared file mapping costs about 1.7 µs on tmpfs (FACTS.md), whether it is
/// faulted in, allocated or populated: at 36 bytes an event, about 15 ns an event. A writer
/// that grew the file itself paid it on the traced thread, in one stall per growth step (up to
/// 4 MiB, about 2 ms), long enough to change what a debounce or a timeout does.
///
/// Writers call ``request()`` when they come near the end of what was grown: one atomic
/// exchange, and a semaphore signal for the first request of a round. A signal never blocks,
/// so a writer in a forked child, where this thread does not exist, is never stuck on it; it
/// grows the file itself.
final class LogGrowthThread: Sendable {
    /// Signalled once per round of requests, and to stop.
    private let wakeUp = DispatchSemaphore(value: 0)
    /// Signalled when the thread has stopped.
    private let finished = DispatchSemaphore(value: 0)
    /// Whether a request is waiting for the thread: only the first request of a round signals.
    private let requested = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    /// The thread once started, and the process that started it: a forked child has no such
    /// thread and must not wait for it.
    private let thread = Mutex<(thread: Thread, process: pid_t)?>(nil)
    /// What the thread does for each round of requests: set once by ``prepare(work:)``, before
    /// the first request.
    nonisolated(unsafe) private var work: (@Sendable () -> Void)?

    /// Says what the thread does for each round of requests. Call it once, before the first
    /// ``request()``.
    func prepare(work: @escaping @Sendable () -> Void) {
        self.work = work
    }

    /// Asks the thread to run its work soon, starting it at the first request. Does nothing
    /// once it is stopping.
    func request() {
        guard !stopping.load(ordering: .relaxed),
              !requested.exchange(true, ordering: .acquiringAndReleasing) else { return }
        start()
        wakeUp.signal()
    }

    /// Stops the thread and waits for its work in progress to end; later requests do nothing.
    /// Called on the thread itself (when its work dropped the last reference to the writer),
    /// it stops without waiting.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Letting go of the thread ends the cycle through its closure once it has returned.
        let running = thread.withLock { thread in
            defer { thread = nil }
            return thread
        }
        guard let running, running.process == getpid() else { return }
        wakeUp.signal()
        if Thread.current != running.thread { finished.wait() }
    }

    /// Starts the thread unless it runs already.
    private func start() {
        thread.withLock { thread in
            guard thread == nil else { return }
            let started = Thread { [self] in run() }
            started.name = "lifeline log growth"
            started.start()
            thread = (started, getpid())
        }
    }

    private func run() {
        defer { finished.signal() }
        while true {
            wakeUp.wait()
            if stopping.load(ordering: .acquiring) { return }
            // Cleared before the work, so that a request made while it runs starts another round.
            requested.store(false, ordering: .releasing)
            work?()
        }
    }
}
