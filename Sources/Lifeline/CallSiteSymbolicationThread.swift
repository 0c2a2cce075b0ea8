import CLifelineRuntime
import Foundation
import Synchronization

/// A thread of a recording's own that symbolicates the call sites captured while the program
/// runs, so that stopping has only the last few left to resolve.
///
/// Every ``pollInterval`` it has its recorder symbolicate the stacks captured since its last
/// look (``CallSiteRecorder/symbolicateNewStacks()``) into the process-wide cache of
/// ``CallStackSymbolicator``, holding no lock of the recorder meanwhile.
/// It runs at the lowest priority (nice 19), so it takes a core the program leaves idle and
/// next to nothing of one the program keeps busy. It holds its recorder weakly and ends at the
/// first look after ``stop()`` or after the recorder is gone; stopping never waits for it.
final class CallSiteSymbolicationThread: Sendable {
    /// How long the thread sleeps between two looks at the recorder, in seconds.
    static let pollInterval = 0.05

    private let stopped = Atomic(false)

    /// Starts the thread for `recorder`.
    func start(for recorder: CallSiteRecorder) {
        let thread = Thread { [weak recorder, self] in
            Self.lowerPriority()
            while !isStopped {
                Thread.sleep(forTimeInterval: Self.pollInterval)
                guard !isStopped, let recorder else { return }
                recorder.symbolicateNewStacks()
            }
        }
        thread.name = "lifeline symbolication"
        thread.start()
    }

    private var isStopped: Bool { stopped.load(ordering: .relaxed) }

    /// Lets the thread end at its next look; returns at once.
    func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    /// Gives the calling thread the lowest priority: nice 19 on Linux, where a thread has a
    /// nice value of its own; the background quality of service elsewhere.
    private static func lowerPriority() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(lifeline_thread_id()), 19)
        #else
        Thread.current.qualityOfService = .background
        #endif
    }
}
