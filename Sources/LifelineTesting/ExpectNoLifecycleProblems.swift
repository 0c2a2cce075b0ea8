#if canImport(Testing)
import Dispatch
import Lifeline
import Testing

/// Checks that a block of code leaves no lifecycle problems, recording an issue that lists
/// them when it does.
///
/// The block is recorded and diagnosed by a ``LifecycleCheck``: any error or warning (a
/// subscriber deallocated early, a subscription cancelled at once, a pipeline created in the
/// block and still subscribed and alive after it, a broken demand contract…) records one
/// issue at the call site, whose comment is the diagnosis report.
///
/// ```swift
/// @Test func theModelKeepsItsSubscription() throws {
///     try expectNoLifecycleProblems {
///         let model = ArticleModel(loader: loader)
///         model.load()
///     }
/// }
/// ```
///
/// - Parameters:
///   - options: How to record; automatic mode by default.
///   - queues: Serial queues the block's work may still run on when it returns, drained
///     before the check (see ``LifecycleCheck/init(options:draining:)``).
///   - sourceLocation: Where to record the issue; the call site by default.
///   - body: The code to check.
/// - Returns: The findings, for further checks.
/// - Throws: What `body` or the check throws (see ``LifecycleCheck/run(_:)``).
@discardableResult
public func expectNoLifecycleProblems(
    options: RecordingOptions = RecordingOptions(),
    draining queues: [DispatchQueue] = [],
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) throws -> LifecycleFindings {
    let findings = try LifecycleCheck(options: options, draining: queues).run(body)
    if !findings.problems.isEmpty {
        Issue.record(Comment(rawValue: findings.failureMessage), sourceLocation: sourceLocation)
    }
    return findings
}

/// Checks that a block of code returns within `timeout` and leaves no lifecycle problems,
/// recording an issue that says what it waits on when it hangs, instead of hanging the suite.
///
/// The block runs on a thread of its own (``LifecycleCheck/run(timeout:_:)``). When it returns
/// in time it is checked as ``expectNoLifecycleProblems(options:draining:sourceLocation:_:)``
/// checks it. When it does not, the check writes a hang record to the log and records one
/// issue whose comment is the `waits-on` chain of each pipeline still open, to the stage
/// that cannot move, and returns; the block's thread is left where it hangs.
///
/// ```swift
/// @Test func theAnswerArrives() throws {
///     try expectNoLifecycleProblems(timeout: .seconds(5)) {
///         let answer = model.ask()            // waits for a pipeline's value
///         #expect(answer == 42)
///     }
/// }
/// ```
///
/// - Parameters:
///   - options: How to record; automatic mode by default.
///   - queues: Serial queues the block's work may still run on when it returns, drained
///     before the check, within the timeout.
///   - timeout: How long the block may run.
///   - sourceLocation: Where to record the issue; the call site by default.
///   - body: The code to check.
/// - Returns: The findings, for further checks.
/// - Throws: What `body` or the check throws (see ``LifecycleCheck/run(timeout:_:)``).
@discardableResult
public func expectNoLifecycleProblems(
    options: RecordingOptions = RecordingOptions(),
    draining queues: [DispatchQueue] = [],
    timeout: Duration,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () throws -> Void
) throws -> LifecycleFindings {
    let findings = try LifecycleCheck(options: options, draining: queues).run(timeout: timeout, body)
    if findings.failed {
        Issue.record(Comment(rawValue: findings.failureMessage), sourceLocation: sourceLocation)
    }
    return findings
}
#endif
