#if canImport(XCTest)
import Dispatch
import Lifeline
import XCTest

/// Asserts that a block of code leaves no lifecycle problems; the failure message lists them.
///
/// The block is recorded and diagnosed by a ``LifecycleCheck``. Any error or warning fails
/// the test at the call site with the diagnosis report as its message. An error thrown by
/// the block or the check fails it too.
///
/// ```swift
/// func testTheModelKeepsItsSubscription() {
///     XCTAssertNoLifecycleProblems {
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
///   - message: Said before the report when the assertion fails.
///   - file: The file to report a failure in; the call site by default.
///   - line: The line to report a failure at; the call site by default.
///   - body: The code to check.
public func XCTAssertNoLifecycleProblems(
    options: RecordingOptions = RecordingOptions(),
    draining queues: [DispatchQueue] = [],
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath,
    line: UInt = #line,
    _ body: () throws -> Void
) {
    failOnFindings(of: "XCTAssertNoLifecycleProblems", message(), file: file, line: line) {
        try LifecycleCheck(options: options, draining: queues).run(body)
    }
}

/// Asserts that a block of code returns within `timeout` and leaves no lifecycle problems; when
/// it hangs, the failure message says what it waits on, and the suite goes on.
///
/// The block runs on a thread of its own (``LifecycleCheck/run(timeout:_:)``): one that does
/// not return in time fails the test with the `waits-on` chain of each pipeline still open,
/// to the stage that cannot move, and its thread is left where it hangs.
///
/// ```swift
/// func testTheAnswerArrives() {
///     XCTAssertNoLifecycleProblems(timeout: .seconds(5)) {
///         XCTAssertEqual(model.ask(), 42)     // waits for a pipeline's value
///     }
/// }
/// ```
///
/// - Parameters:
///   - options: How to record; automatic mode by default.
///   - queues: Serial queues the block's work may still run on when it returns, drained
///     before the check, within the timeout.
///   - timeout: How long the block may run.
///   - message: Said before the report when the assertion fails.
///   - file: The file to report a failure in; the call site by default.
///   - line: The line to report a failure at; the call site by default.
///   - body: The code to check.
public func XCTAssertNoLifecycleProblems(
    options: RecordingOptions = RecordingOptions(),
    draining queues: [DispatchQueue] = [],
    timeout: Duration,
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath,
    line: UInt = #line,
    _ body: @escaping @Sendable () throws -> Void
) {
    failOnFindings(of: "XCTAssertNoLifecycleProblems", message(), file: file, line: line) {
        try LifecycleCheck(options: options, draining: queues).run(timeout: timeout, body)
    }
}

/// Fails the test at `file` and `line` when `check`'s findings fail (``LifecycleFindings/failed``),
/// with their message after `message`, or when it throws, naming `assertion`.
func failOnFindings(
    of assertion: String, _ message: String, file: StaticString, line: UInt, _ check: () throws -> LifecycleFindings
) {
    let prefix = message.isEmpty ? "" : "\(message) - "
    do {
        let findings = try check()
        if findings.failed {
            XCTFail(prefix + findings.failureMessage, file: file, line: line)
        }
    } catch {
        XCTFail("\(prefix)\(assertion) threw: \(error)", file: file, line: line)
    }
}
#endif
