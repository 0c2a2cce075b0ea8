import LifelineSamples
import LifelineTesting
import OpenCombineShim
import XCTest

/// `XCTAssertNoLifecycleProblems`: silent on correct code, and a failure at the call site
/// listing the diagnoses on buggy code.
final class XCTAssertNoLifecycleProblemsTests: XCTestCase {
    private struct Failure {
        let description: String
        let line: Int
    }

    /// While set, failures are collected here instead of failing the test, so that the
    /// assertion's own failures can be checked.
    private var collectedFailures: [Failure]?

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        if collectedFailures != nil {
            collectedFailures?.append(Failure(description: description, line: lineNumber))
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }

    private func failures(of assertion: () -> Void) -> [Failure] {
        collectedFailures = []
        assertion()
        defer { collectedFailures = nil }
        return collectedFailures ?? []
    }

    func testCorrectCodePasses() {
        let failures = failures {
            XCTAssertNoLifecycleProblems {
                let subject = CurrentValueSubject<Int, Never>(0)
                let kept = subject.map { $0 + 1 }.sink { _ in }
                subject.send(1)
                subject.send(completion: .finished)
                withExtendedLifetime(kept) {}
            }
        }
        XCTAssertEqual(failures.map(\.description), [])
    }

    func testBuggyCodeFailsAtTheCallSiteWithTheReport() {
        let line = #line + 2
        let failures = failures {
            XCTAssertNoLifecycleProblems("loading an article") {
                SampleScenario.forgottenSubscription.run(SampleConsole())
            }
        }
        XCTAssertEqual(failures.count, 1)
        XCTAssertEqual(failures.first?.line, line)
        let description = failures.first?.description ?? ""
        XCTAssertTrue(description.contains("loading an article - The checked code left lifecycle problems:"), description)
        XCTAssertTrue(description.contains("1 error in 1 subscription."), description)
        XCTAssertTrue(description.contains("error subscription-not-retained: "), description)
    }

    func testAnErrorThrownByTheBlockFailsTheAssertion() {
        struct Broken: Error {}
        let failures = failures {
            XCTAssertNoLifecycleProblems { throw Broken() }
        }
        XCTAssertEqual(failures.count, 1)
        XCTAssertTrue(failures.first?.description.contains("XCTAssertNoLifecycleProblems threw: Broken()") == true)
    }
}
