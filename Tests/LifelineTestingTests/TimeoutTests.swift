import Dispatch
import Lifeline
import LifelineAnalysis
import LifelineLog
import LifelineTesting
import OpenCombineShim
import Testing

/// A checked block that waits for a `zip` of two subjects, only one of which is ever sent a
/// value: it blocks until the pair arrives, which never happens until the test lets it go.
private struct PairWaiter: Sendable {
    /// Released by the test once the check has returned, so that the block's thread ends.
    let release = DispatchSemaphore(value: 0)
    /// Signalled once the block's thread has let go of its pipeline.
    let finished = DispatchSemaphore(value: 0)

    /// The checked block: waits for a pair, then says it let go of it.
    @Sendable func block() {
        waitForAPair()
        finished.signal()
    }

    /// Lets the block's thread go, and waits until it let go of its pipeline: its cancel
    /// belongs to no later test's recording.
    func end() {
        release.signal()
        finished.wait()
    }

    func waitForAPair() {
        let prices = PassthroughSubject<Int, Never>()
        let quotes = PassthroughSubject<String, Never>()
        let arrived = DispatchSemaphore(value: 0)
        let pairs = prices.lifeline("prices")
            .zip(quotes.lifeline("quotes"))
            .lifeline("priced quotes")
            .sink { _ in arrived.signal() }
        prices.send(1)
        // The hang: nothing is ever sent to quotes. The test's release stands for "never".
        while arrived.wait(timeout: .now() + 0.05) == .timedOut {
            if release.wait(timeout: .now()) == .success { break }
        }
        withExtendedLifetime(pairs) {}
    }
}

/// The test helpers' `timeout:`: a block that hangs fails with the waits-on chain instead of
/// hanging the suite, and one that returns in time is checked as always.
@Suite("checks with a timeout", .serialized)
struct TimeoutTests {
    @Test func aBlockThatHangsIsDiagnosedWithItsWaitsOnChain() throws {
        let waiter = PairWaiter()
        defer { waiter.end() }
        let findings = try LifecycleCheck().run(timeout: .seconds(2), waiter.block)
        #expect(findings.timedOut == .seconds(2))
        #expect(findings.failed)
        #expect(findings.trace.damage.contains(.notClosed))
        let hang = try #require(findings.trace.hangs.last)
        #expect(hang.cause == .timeout)
        #expect(hang.seq == findings.trace.events.last?.seq)
        let wait = try #require(findings.problems.first { $0.code == "waits-on" })
        #expect(wait.message.hasPrefix("The program was seen hanging at "), "\(wait.message)")
        #expect(wait.message.contains("while 1 pipeline was open (a hang record written when the test's timeout ran out)"))
        #expect(wait.evidence.contains(hang.seq))
        let quotes = wait.message.firstMatch(of: /ChildSubscriber "quotes" #[0-9]+ \(TimeoutTests\.swift:([0-9]+)\)/)
        #expect(quotes?.output.1 == "35", "\(wait.message)")
        #expect(wait.message.contains(" → PassthroughSubject #"), "\(wait.message)")
        #expect(findings.failureMessage.hasPrefix("The checked code did not return within 2.0 seconds; what it waits on:\n\n"),
                "\(findings.failureMessage)")
        #expect(findings.failureMessage.contains("waits-on: The program was seen hanging at "))
    }

    @Test func expectNoLifecycleProblemsRecordsTheChainAsItsIssue() throws {
        let waiter = PairWaiter()
        defer { waiter.end() }
        let line = #line + 3
        var findings: LifecycleFindings?
        try withKnownIssue {
            findings = try expectNoLifecycleProblems(timeout: .seconds(2), waiter.block)
        } matching: { issue in
            issue.sourceLocation?.line == line
                && issue.comments.contains { $0.rawValue.contains("Waits on: Sink \"priced quotes\" #") }
        }
        #expect(findings?.timedOut == .seconds(2))
    }

    @Test func aBlockThatReturnsInTimeIsCheckedAsAlways() throws {
        let findings = try expectNoLifecycleProblems(timeout: .seconds(60)) {
            let subject = PassthroughSubject<Int, Never>()
            let kept = subject.sink { _ in }
            subject.send(1)
            subject.send(completion: .finished)
            withExtendedLifetime(kept) {}
        }
        #expect(findings.timedOut == nil)
        #expect(!findings.failed)
        #expect(findings.trace.hangs.isEmpty)
        #expect(!findings.trace.damage.contains(.notClosed))
    }
}
