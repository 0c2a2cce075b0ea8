import Lifeline
import LifelineSamples
import LifelineTesting
import OpenCombineShim
import XCTest

/// `XCTAssertNoLifecycleProblems` and `XCTAssertNoLifecycleGrowth`: silent on correct code, and
/// a failure at the call site listing the diagnoses on buggy code.
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

    /// A block that waits for a value no one sends fails after its timeout with what it waits
    /// on, and the test goes on; the test then lets the block's thread go.
    func testABlockThatHangsFailsWithWhatItWaitsOn() {
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        @Sendable func waitForAnAnswer() {
            let answers = PassthroughSubject<Int, Never>()
            let waiting = answers.lifeline("answer").sink { _ in }
            release.wait()
            withExtendedLifetime(waiting) {}
        }
        let line = #line + 2
        let failures = failures {
            XCTAssertNoLifecycleProblems(timeout: .seconds(2)) {
                waitForAnAnswer()
                finished.signal()
            }
        }
        release.signal()
        finished.wait()
        XCTAssertEqual(failures.map(\.line), [line])
        let description = failures.first?.description ?? ""
        XCTAssert(description.contains("The checked code did not return within 2.0 seconds; what it waits on:"), description)
        XCTAssert(description.contains("(a hang record written when the test's timeout ran out)"), description)
        XCTAssert(description.contains("Waits on: Sink \"answer\" #"), description)
    }

    /// A screen that leaves its model behind each time it opens fails at the call site with what
    /// grew; the same screen, fixed, passes.
    func testAScreenLeakingItsModelEachRunFailsAndTheFixedOnePasses() {
        let service = PriceService()
        let line = #line + 2
        let leaking = failures {
            XCTAssertNoLifecycleGrowth(iterations: 5, "opening quotes") {
                let screen = QuoteScreen(service: service, capturingWeakly: false)
                screen.open("ACME")
                screen.close()
            }
        }
        XCTAssertEqual(leaking.map(\.line), [line])
        let description = leaking.first?.description ?? ""
        XCTAssert(description.contains("opening quotes - What the scenario left behind grew with its runs:"), description)
        XCTAssert(description.contains("error lifecycle-growth: Each run of the scenario left more behind than the run "
            + "before, from run 2 of 5 on: pipelines made at QuoteScreen.swift:"), description)
        XCTAssert(description.contains("QuoteModel objects (alive after each run: 1, 2, 3, 4, 5)"), description)

        let fixed = failures {
            XCTAssertNoLifecycleGrowth(iterations: 5) {
                let screen = QuoteScreen(service: service, capturingWeakly: true)
                screen.open("ACME")
                screen.close()
            }
        }
        XCTAssertEqual(fixed.map(\.description), [])
    }

    func testTooFewRunsFailTheAssertionWithTheLeastThatShowsGrowth() {
        let failures = failures {
            XCTAssertNoLifecycleGrowth(iterations: 2, warmUp: 0) {}
        }
        XCTAssertEqual(failures.count, 1)
        let description = failures.first?.description ?? ""
        XCTAssert(description.contains("XCTAssertNoLifecycleGrowth threw: 2 iterations with a warm-up of 0 can't show growth: "
            + "it takes at least 4, 3 runs after the warm-up that each leave more behind than the run before"), description)
    }
}
