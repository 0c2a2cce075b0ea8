#if canImport(Testing)
import Dispatch
import Lifeline
import Testing

/// Runs a scenario again and again and records an issue when what it leaves behind grows with
/// the runs: a screen that leaks its model each time it opens.
///
/// The runs are recorded and checked by ``LifecycleCheck/run(iterations:warmUp:_:)``: after the
/// warm-up, a type of object, or the pipelines made at one place, that each of the last three
/// runs or more left more of than the run before records one issue at the call site. Its
/// comment names the place or the type, the run where the growth began, and what held the first
/// object left since then (a retain path).
///
/// ```swift
/// @Test func theQuoteScreenLeavesNothingBehind() throws {
///     let service = PriceService()
///     try expectNoLifecycleGrowth(iterations: 10) {
///         let screen = QuoteScreen(service: service)
///         screen.open()
///         screen.close()
///     }
/// }
/// ```
///
/// - Parameters:
///   - iterations: How many times to run `body`: at least `warmUp` + 3.
///   - warmUp: How many of the first runs may leave things behind without growing; one by
///     default.
///   - options: How to record; automatic mode by default.
///   - queues: Serial queues a run's work may still run on when it returns, drained after each
///     run.
///   - sourceLocation: Where to record the issue; the call site by default.
///   - body: One run of the scenario.
/// - Returns: The findings, for further checks.
/// - Throws: What `body` or the check throws (see ``LifecycleCheck/run(iterations:warmUp:_:)``).
@discardableResult
public func expectNoLifecycleGrowth(
    iterations: Int,
    warmUp: Int = 1,
    options: RecordingOptions = RecordingOptions(),
    draining queues: [DispatchQueue] = [],
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) throws -> LifecycleFindings {
    let findings = try LifecycleCheck(options: options, draining: queues).run(iterations: iterations, warmUp: warmUp, body)
    if findings.failed {
        Issue.record(Comment(rawValue: findings.failureMessage), sourceLocation: sourceLocation)
    }
    return findings
}
#endif
