import Lifeline
import LifelineAnalysis
import LifelineSamples
import LifelineTesting
import OpenCombineShim
import Testing

/// A view model that stores the AnyCancellable of a sink whose closure captures self
/// strongly: once released it can never deinit, and its subscription stays open.
private final class EchoModel {
    var last = 0
    private var cancellable: AnyCancellable?

    init(_ numbers: PassthroughSubject<Int, Never>) {
        cancellable = numbers.sink { self.last = $0 }
    }
}

/// `expectNoLifecycleProblems`: silent on correct code, and a readable issue at the call site
/// on buggy code.
@Suite("expectNoLifecycleProblems", .serialized)
struct ExpectNoLifecycleProblemsTests {
    @Test func aKeptSinkThatFinishesPasses() throws {
        let findings = try expectNoLifecycleProblems {
            let subject = PassthroughSubject<Int, Never>()
            let kept = subject.sink { _ in }
            subject.send(1)
            subject.send(completion: .finished)
            withExtendedLifetime(kept) {}
        }
        #expect(findings.problems.isEmpty)
        #expect(findings.trace.events.contains { $0.kind.name == "value" }, "the block was recorded")
    }

    @Test func aDroppedCancellableIsReportedAtTheCallSite() throws {
        var findings: LifecycleFindings?
        let line = #line + 3
        try withKnownIssue {
            let subject = PassthroughSubject<Int, Never>()
            findings = try expectNoLifecycleProblems {
                _ = subject.sink { _ in }
                subject.send(1)
            }
        } matching: { issue in
            issue.sourceLocation?.line == line
                && issue.comments.contains { $0.rawValue.contains("warning cancelled-immediately: ") }
        }
        #expect(findings?.problems.map(\.code) == ["cancelled-immediately"])
    }

    @Test func theFailureMessageIsTheDiagnosisReport() throws {
        var findings: LifecycleFindings?
        try withKnownIssue {
            findings = try expectNoLifecycleProblems { SampleScenario.forgottenSubscription.run(SampleConsole()) }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("The checked code left lifecycle problems:\n\n1 error in 1 subscription.\n") }
        }
        let message = try #require(findings?.failureMessage)
        #expect(message.contains("  error subscription-not-retained: DecodedDataTaskPublisher.DecodedDataTaskSubscription #"))
        #expect(message.contains("    fix: Keep a strong reference to the subscription while it runs"))
    }

    @Test func aSubscriptionStillOpenAndAliveAfterTheBlockIsALeak() throws {
        let subject = PassthroughSubject<Int, Never>()
        var kept: AnyCancellable?
        var findings: LifecycleFindings?
        try withKnownIssue {
            findings = try expectNoLifecycleProblems {
                kept = subject.sink { _ in }
                subject.send(1)
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("error leaked-subscription: ") }
        }
        let leak = try #require(findings?.problems.first)
        #expect(findings?.problems.map(\.code) == ["leaked-subscription"])
        let leakedTypes = leak.objects.compactMap { findings?.trace.object($0)?.shortTypeName }
        #expect(leakedTypes.contains("Subscribers.Sink") || leakedTypes.contains("Sink"), "\(leakedTypes)")
        #expect(leak.evidence.last == findings?.scope.end)
        kept?.cancel()
    }

    @Test func aViewModelCaughtInARetainCycleLeaksItsSubscription() throws {
        let numbers = PassthroughSubject<Int, Never>()
        var findings: LifecycleFindings?
        try withKnownIssue {
            findings = try expectNoLifecycleProblems {
                var model: EchoModel? = EchoModel(numbers)
                numbers.send(1)
                model = nil
                _ = model
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("error leaked-subscription: ") }
        }
        // The snapshot taken at stop shows the loop itself too.
        #expect(findings?.problems.map(\.code) == ["leaked-subscription", "retain-cycle"])
    }

    @Test func aFinishedPipelineWhoseCancellableIsStillKeptIsNoLeak() throws {
        var kept: AnyCancellable?
        let findings = try expectNoLifecycleProblems {
            kept = Just(1).sink { _ in }
        }
        #expect(findings.problems.isEmpty)
        #expect(kept != nil)
    }

    @Test func aPipelineCancelledInsideTheBlockIsNoLeak() throws {
        let subject = PassthroughSubject<Int, Never>()
        var kept: AnyCancellable?
        try expectNoLifecycleProblems {
            kept = subject.sink { _ in }
            subject.send(1)
            kept?.cancel()
        }
        #expect(kept != nil)
    }

    @Test func whatTheBlockThrowsIsThrown() {
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try expectNoLifecycleProblems { throw Failure() }
        }
    }
}
