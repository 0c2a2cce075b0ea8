import Dispatch
import Lifeline
import LifelineAnalysis
import LifelineLog

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
}
