#if canImport(XCTest)
import Dispatch
import Lifeline
import XCTest

/// Asserts that what a scenario leaves behind does not grow when it runs again and again; the
/// failure message names what grew, from which run, and what holds it.
///
/// The runs are recorded and checked by ``LifecycleCheck/run(iterations:warmUp:_:)``: after the
/// warm-up, a type of object, or the pipelines made at one place, that each of the last three
/// runs or more left more of than the run before fails the test at the call site. An error
/// thrown by the scenario or the check fails it too.
///
/// ```swift
/// func testTheQuoteScreenLeavesNothingBehind() {
///     let service = PriceService()
///     XCTAssertNoLifecycleGrowth(iterations: 10) {
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
///   - message: Said before the report when the assertion fails.
///   - file: The file to report a failure in; the call site by default.
///   - line: The line to report a failure at; the call site by default.
///   - body: One run of the scenario.
public func XCTAssertNoLifecycleGrowth(
    iterations: Int,
    warmUp: Int = 1,
    options: RecordingOptions = RecordingOptions(),
    draining queues: [DispatchQueue] = [],
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath,
    line: UInt = #line,
    _ body: () throws -> Void
) {
    failOnFindings(of: "XCTAssertNoLifecycleGrowth", message(), file: file, line: line) {
        try LifecycleCheck(options: options, draining: queues).run(iterations: iterations, warmUp: warmUp, body)
    }
}
#endif
