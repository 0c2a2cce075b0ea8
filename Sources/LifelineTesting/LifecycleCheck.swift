import Dispatch
import Foundation
import Lifeline
import LifelineAnalysis
import LifelineLog
import Synchronization

/// Records a block of code and diagnoses the pipelines it leaves behind: the engine of
/// `expectNoLifecycleProblems` (Swift Testing) and `XCTAssertNoLifecycleProblems` (XCTest),
/// for tests that want the findings themselves.
///
/// The block is the observed scope. It is recorded in automatic mode, so every hop of every
/// pipeline is seen, including those inside operators. Once it returns, the queues it was
/// given are drained, the scope ends, and recording stops with a last liveness check. Then
/// every standard rule runs, plus `leaked-subscription` for the scope: a subscriber or
/// subscription created inside the block, still subscribed (neither completed nor cancelled)
/// and still alive when recording stopped, is a leak, as an object that outlives an XCTest
/// `addTeardownBlock { [weak sut] in XCTAssertNil(sut) }` is.
///
/// ```swift
/// let findings = try LifecycleCheck(draining: [queue]).run {
///     model.load()
/// }
/// #expect(findings.problems.map(\.code) == ["cancelled-immediately"])
/// ```
///
/// Recording is process-wide: while the block runs, pipelines that other threads run are
/// recorded too. Checks wait for each other, but run the tests that use them serialized
/// (`@Suite(.serialized)`, or `swift test --no-parallel`) when other tests run Combine code
/// at the same time.
public struct LifecycleCheck: Sendable {
    /// The mark that opens the observed scope in the trace.
    public static let beginMark = "LifelineTesting: checked block begins"
    /// The mark that closes it.
    public static let endMark = "LifelineTesting: checked block ends"

    /// How the block is recorded.
    public var options: RecordingOptions
    /// Serial queues that the block's work may still be running on when it returns: each is
    /// drained, in order, before the scope ends.
    public var drainedQueues: [DispatchQueue]

    /// Creates a check.
    ///
    /// - Parameters:
    ///   - options: How to record; automatic mode by default.
    ///   - queues: Serial queues to drain after the block returns. Each is drained once, in
    ///     order, by running an empty block on it, so work that one queue sends to an earlier
    ///     one must be awaited by the block itself.
    public init(options: RecordingOptions = RecordingOptions(), draining queues: [DispatchQueue] = []) {
        self.options = options
        drainedQueues = queues
    }

    /// Runs `body` under recording and diagnoses what it did.
    ///
    /// - Parameter body: The code to check. It should return once the work it starts is done,
    ///   apart from work left on ``drainedQueues``.
    /// - Returns: The trace and every finding in it.
    /// - Throws: What `body` throws; a `LifelineError` when a recording is already running;
    ///   a `TraceReadError` when the log can't be read back; or ``LifecycleCheckError`` when
    ///   the log lost the scope's marks.
    public func run(_ body: () throws -> Void) throws -> LifecycleFindings {
        let trace = try Lifeline.record(options: options) {
            Lifeline.mark(Self.beginMark)
            try body()
            for queue in drainedQueues {
                queue.sync {}
            }
            Lifeline.mark(Self.endMark)
        }
        guard let scope = ObservedScope(trace: trace, beginMark: Self.beginMark, endMark: Self.endMark) else {
            throw LifecycleCheckError.scopeNotRecorded(damage: trace.damage.map(\.description))
        }
        let analyzer = TraceAnalyzer(rules: TraceAnalyzer.standardRules + [LeakedSubscriptionRule(scope: scope)])
        return LifecycleFindings(trace: trace, scope: scope, diagnoses: analyzer.diagnose(trace))
    }

    /// Runs `body` under recording, on a thread of its own, and diagnoses what it did; when it
    /// does not return (its queues drained) within `timeout`, diagnoses the hang instead of
    /// waiting for it.
    ///
    /// A block that returns in time is checked as ``run(_:)`` checks it. One that does not gets
    /// a hang record (cause `timeout`) and a snapshot in its log, and the log as it stands is
    /// diagnosed as the log of a killed program: a `waits-on` finding for each pipeline still
    /// open, saying what it waits on, hop by hop, to the stage that cannot move. Recording then
    /// stops, and the findings say the block timed out (``LifecycleFindings/timedOut``). The
    /// block's thread is left where it hangs: should it move later, what it does is recorded
    /// by whatever recording runs then, as any thread's pipelines are.
    ///
    /// ```swift
    /// let findings = try LifecycleCheck().run(timeout: .seconds(5)) {
    ///     model.loadAndWait()
    /// }
    /// #expect(!findings.failed, "\(findings.failureMessage)")
    /// ```
    ///
    /// - Parameters:
    ///   - timeout: How long the block and the draining of its queues may take.
    ///   - body: The code to check.
    /// - Returns: The trace and every finding in it.
    /// - Throws: What `body` throws when it returns in time; a `LifelineError` when a recording
    ///   is already running; a `TraceReadError` when the log can't be read back; or
    ///   ``LifecycleCheckError`` when the log lost the scope's marks.
    public func run(timeout: Duration, _ body: @escaping @Sendable () throws -> Void) throws -> LifecycleFindings {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("lifeline-check-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString).lifeline").path
        try Lifeline.start(writingTo: path, options: options)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let outcome = Outcome()
        let queues = drainedQueues
        Thread.detachNewThread {
            Lifeline.mark(Self.beginMark)
            outcome.finish(Result {
                try body()
                for queue in queues { queue.sync {} }
                // A block that timed out ended another recording's scope, were it marked now.
                if !outcome.abandoned.load(ordering: .acquiring) { Lifeline.mark(Self.endMark) }
            })
        }
        let (seconds, attoseconds) = timeout.components
        let deadline = DispatchTime.now() + .nanoseconds(Int(clamping: seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
        guard outcome.done.wait(timeout: deadline) == .success else {
            outcome.abandoned.store(true, ordering: .releasing)
            return try diagnoseHang(loggedAt: path, timeout: timeout)
        }
        Lifeline.stop()
        try outcome.result.withLock { $0! }.get()
        let trace = try TraceReader.read(contentsOf: path)
        guard let scope = ObservedScope(trace: trace, beginMark: Self.beginMark, endMark: Self.endMark) else {
            throw LifecycleCheckError.scopeNotRecorded(damage: trace.damage.map(\.description))
        }
        let analyzer = TraceAnalyzer(rules: TraceAnalyzer.standardRules + [LeakedSubscriptionRule(scope: scope)])
        return LifecycleFindings(trace: trace, scope: scope, diagnoses: analyzer.diagnose(trace))
    }

    /// Writes a hang record to the running recording's log at `path`, reads the log as it
    /// stands (no end record: a hung program's log), stops recording, and diagnoses what was
    /// read. The scope runs from the block's first mark to the end of the log.
    private func diagnoseHang(loggedAt path: String, timeout: Duration) throws -> LifecycleFindings {
        _ = Lifeline.recordHang(.timeout)
        let read = Result { try TraceReader.read(contentsOf: path) }
        Lifeline.stop()
        let trace = try read.get()
        guard let begin = trace.events.first(where: { $0.kind == .mark(label: Self.beginMark) })?.seq else {
            throw LifecycleCheckError.scopeNotRecorded(damage: trace.damage.map(\.description))
        }
        let scope = ObservedScope(begin: begin, end: (trace.events.last?.seq ?? begin) + 1)
        return LifecycleFindings(
            trace: trace, scope: scope, diagnoses: TraceAnalyzer(rules: TraceAnalyzer.standardRules).diagnose(trace),
            timedOut: timeout
        )
    }

    /// How the block's thread ended: signalled once, with its result.
    private final class Outcome: Sendable {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Void, any Error>?>(nil)
        /// Set when the block ran past its timeout and the check went on without it.
        let abandoned = Atomic<Bool>(false)

        func finish(_ result: Result<Void, any Error>) {
            self.result.withLock { $0 = result }
            done.signal()
        }
    }
}
