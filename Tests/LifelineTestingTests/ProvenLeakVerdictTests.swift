import Dispatch
import Lifeline
import LifelineAnalysis
import LifelineLog
import OpenCombineShim
import Testing

/// Ownership verdicts on code written the way third-party libraries and apps write it: a
/// leak is reported only where the log proves an object should be gone, and a running
/// subscription whose cancel is still in reach is no retain cycle, whatever objects its loop
/// holds.
@Suite("Proven leak verdicts, recorded", .serialized)
struct ProvenLeakVerdictTests {
    /// The findings of a recording of `body`, with a snapshot at stop.
    private func findings(_ body: () throws -> Void) throws -> (trace: Trace, diagnoses: [Diagnosis]) {
        let trace = try Lifeline.record(body)
        return (trace, TraceAnalyzer().diagnose(trace))
    }

    /// Keeps its subscription's AnyCancellable, as a screen does.
    final class Screen {
        var cancellable: AnyCancellable?
        var received: [Int] = []
    }

    @Test func aRunningSubscriptionWhoseStateIsInAHelperIsNoRetainCycleWhileItsCancellableIsKept() throws {
        let screen = Screen()
        let subject = PassthroughSubject<Int, Never>()
        let (_, diagnoses) = try findings {
            screen.cancellable = subject.bufferedRelay().sink { [weak screen] in screen?.received.append($0) }
            subject.send(1)
        }
        withExtendedLifetime((screen, subject)) {}
        #expect(screen.received == [1])
        #expect(diagnoses.isEmpty, "\(diagnoses.map(\.message))")
    }

    @Test func aServiceLoopThroughAFlatMapClosureIsNoRetainCycleWhileAModelKeepsTheCancellable() throws {
        let service = ResultsService()
        var model: ResultsModel?
        let (_, diagnoses) = try findings {
            model = ResultsModel(service: service)
            model?.queries.send("a")
            service.results.send("apple")
        }
        #expect(model?.shown == ["apple"])
        withExtendedLifetime(service) {}
        #expect(diagnoses.isEmpty, "\(diagnoses.map(\.message))")
    }

    @Test func aWithLatestFromThatDropsItsRelayLeavesALoopNothingCanEnd() throws {
        var pairs: [String] = []
        let (trace, diagnoses) = try findings {
            let other = PassthroughSubject<Int, Never>()
            let main = PassthroughSubject<Int, Never>()
            let cancellable = main.withLatestFrom(other, dropsRelay: true).sink { pairs.append("\($0.0),\($0.1)") }
            other.send(1)
            main.send(2)
            cancellable.cancel()
        }
        #expect(pairs == ["2,1"])
        let cycle = try #require(diagnoses.count == 1 ? diagnoses.first : nil, "\(diagnoses.map(\.message))")
        #expect(cycle.code == "retain-cycle")
        #expect(cycle.severity == .error)
        let names = Set(cycle.objects.compactMap { trace.object($0)?.shortTypeName })
        #expect(names.contains { $0.hasPrefix("LatestRelay") }, "\(names)")
        #expect(cycle.message.contains("still subscribed though its pipeline was cancelled at @"), "\(cycle.message)")
    }

    @Test func aWithLatestFromThatCancelsItsRelayLeavesNothing() throws {
        let (_, diagnoses) = try findings {
            let other = PassthroughSubject<Int, Never>()
            let main = PassthroughSubject<Int, Never>()
            let cancellable = main.withLatestFrom(other).sink { _ in }
            other.send(1)
            main.send(2)
            cancellable.cancel()
        }
        #expect(diagnoses.isEmpty, "\(diagnoses.map(\.message))")
    }

    @Test func aSubjectThatKeepsItsCancelledSubscriptionsIsOneFindingWithTheirCount() throws {
        let subject = ReplayingSubject<Int>(bufferSize: 1)
        let (trace, diagnoses) = try findings {
            subject.send(0)
            for _ in 0..<1_000 {
                subject.sink { _ in }.cancel()
            }
        }
        withExtendedLifetime(subject) {}
        let leak = try #require(diagnoses.count == 1 ? diagnoses.first : nil, "\(diagnoses.map(\.message))")
        #expect(leak.code == "leaked-subscription")
        #expect(leak.objects.count == 1_000)
        // Each cited event is one of the first five cancels, and only those.
        let kinds = leak.evidence.compactMap { seq in trace.events.first { $0.seq == seq }?.kind.name }
        #expect(kinds == Array(repeating: "cancel", count: 5), "\(kinds)")
    }

    @Test func aPassthroughSubjectSubscribedAndCancelledAThousandTimesKeepsNothing() throws {
        let subject = PassthroughSubject<Int, Never>()
        let (_, diagnoses) = try findings {
            for _ in 0..<1_000 {
                subject.sink { _ in }.cancel()
            }
        }
        withExtendedLifetime(subject) {}
        #expect(diagnoses.isEmpty, "\(diagnoses.map(\.message))")
    }

    @Test func aRunningSubscriptionNothingOutsideReferencesIsOutOfReach() throws {
        let (trace, diagnoses) = try findings {
            let subject = PassthroughSubject<Int, Never>()
            subject.subscribe(KeepingSubscriber())
            subject.send(1)
        }
        let cycle = try #require(diagnoses.count == 1 ? diagnoses.first : nil, "\(diagnoses.map(\.message))")
        #expect(cycle.code == "retain-cycle")
        #expect(cycle.severity == .error)
        #expect(cycle.objects.contains { trace.object($0)?.shortTypeName == "KeepingSubscriber" })
        #expect(cycle.message.hasSuffix("so nothing can send to, complete or cancel the subscription any more."), "\(cycle.message)")
    }

    @Test func aRunningSubscriptionItsOwnerCanStillCancelIsNoFinding() throws {
        let subscriber = KeepingSubscriber()
        let (_, diagnoses) = try findings {
            let subject = PassthroughSubject<Int, Never>()
            subject.subscribe(subscriber)
            subject.send(1)
        }
        withExtendedLifetime(subscriber) {}
        #expect(diagnoses.isEmpty, "\(diagnoses.map(\.message))")
    }

    @Test func aWrapperThatKeepsItsRelayAfterCompletionLeavesALoopWhoseWorkIsOver() throws {
        let (trace, diagnoses) = try findings {
            let subject = PassthroughSubject<Int, Never>()
            subject.referenceCounted().subscribe(KeepingSubscriber())
            subject.send(1)
            subject.send(completion: .finished)
        }
        // The loop, and the objects of the two finished hops it keeps (the subscriber's, and the
        // relay's upstream) in one finding: one loop keeps them.
        #expect(diagnoses.map(\.code) == ["retain-cycle", "leaked-subscription"], "\(diagnoses.map(\.message))")
        #expect(diagnoses.last?.message.contains("their subscriptions had ended (completed at @") == true, "\(diagnoses.map(\.message))")
        let cycle = try #require(diagnoses.first)
        #expect(cycle.severity == .error)
        #expect(cycle.message.contains("Their work was over (") && cycle.message.contains("completed at @"), "\(cycle.message)")
        // The completion that ended the work is cited.
        let completions = trace.events.filter { if case .completion = $0.kind, $0.phase == .begin { true } else { false } }.map(\.seq)
        #expect(!Set(cycle.evidence).isDisjoint(with: completions))
    }

    /// A subscriber that refused a second subscription by cancelling it still runs its first:
    /// that cancel ended nothing it was subscribed to.
    @Test func aRejectedSecondSubscriptionsCancelDoesNotEndTheFirst() throws {
        let (_, diagnoses) = try findings {
            let subject = PassthroughSubject<Int, Never>()
            let subscriber = KeepingSubscriber()
            subject.subscribe(subscriber)
            subject.subscribe(subscriber)
            subject.send(1)
        }
        #expect(!diagnoses.contains { $0.code == "leaked-subscription" }, "\(diagnoses.map(\.message))")
        #expect(diagnoses.map(\.code).sorted() == ["duplicate-subscription", "retain-cycle"], "\(diagnoses.map(\.message))")
    }
}

extension ProvenLeakVerdictTests {
    /// The fingerprints of the findings of `leaking`, recorded afresh.
    private func fingerprints(_ leaking: () -> Void) throws -> [String] {
        try findings(leaking).diagnoses.map(\.fingerprint)
    }

    private func keepRelayAfterCompletion() {
        let subject = PassthroughSubject<Int, Never>()
        subject.referenceCounted().subscribe(KeepingSubscriber())
        subject.send(completion: .finished)
    }

    @Test func aBugHasOneFingerprintInEveryRunAndAnotherBugAnother() throws {
        let first = try fingerprints(leaveADroppedRelay)
        #expect(first.count == 1 && first.allSatisfy { $0.count == 16 }, "\(first)")
        for _ in 0..<3 {
            let again = try fingerprints(leaveADroppedRelay)
            #expect(again == first)
        }
        let other = try fingerprints(keepRelayAfterCompletion)
        #expect(!other.isEmpty && Set(other).isDisjoint(with: first), "\(other) \(first)")
    }

    @Test func aLeakTraceMarksTheReferencesAFixChanges() throws {
        let (trace, diagnoses) = try findings(leaveADroppedRelay)
        let leakTrace = try #require(diagnoses.first?.leakTrace)
        #expect(leakTrace.steps.allSatisfy { $0.verdict == .stuck })
        #expect(leakTrace.loopStart == 0)
        // A loop of Combine's objects alone: every reference on it is the code to fix.
        #expect(leakTrace.steps.allSatisfy { $0.isSuspect })
        let relay = try #require(leakTrace.steps.first { trace.object($0.object)?.shortTypeName.hasPrefix("LatestRelay") == true })
        #expect(relay.reason.hasPrefix("still subscribed though its pipeline was cancelled at @"))
        #expect(relay.reference == "LatestRelay.subscription.subscription", "\(relay)")
    }
}

extension ProvenLeakVerdictTests {
    @Test func aFindingRepeatedFromOneLineIsPrintedThreeTimesAndCounted() throws {
        let subject = PassthroughSubject<Int, Never>()
        let (trace, diagnoses) = try findings {
            for _ in 0..<5 {
                _ = subject.sink { _ in }
            }
        }
        withExtendedLifetime(subject) {}
        #expect(diagnoses.count == 5 && Set(diagnoses.map(\.fingerprint)).count == 1, "\(diagnoses.map(\.message))")
        let text = TextDiagnosisReport(trace: trace, diagnoses: diagnoses).render()
        #expect(text.components(separatedBy: "  warning cancelled-immediately:").count - 1 == 3, "\(text)")
        #expect(text.contains("  2 more cancelled-immediately with fingerprint \(diagnoses[0].fingerprint), first evidence at @"), "\(text)")
        #expect(text.hasPrefix("5 warnings in 5 subscriptions."), "\(text)")
    }

    /// OpenCombine's `Retry` keeps its upstream's subscription after the upstream completed, and
    /// a `Timeout` under it holds the retry back: Combine's own loop, no change to the program
    /// breaks it.
    @Test func combinesOwnLoopKeptAfterItsWorkIsListedApartNotAsTheProgramsFinding() throws {
        let queue = DispatchQueue(label: "network")
        var received: [Int] = []
        var cancellables = Set<AnyCancellable>()
        let finished = DispatchSemaphore(value: 0)
        let (trace, diagnoses) = try findings {
            // The timeout delivers on its queue: the block waits for the completion there.
            Just(1)
                .timeout(.seconds(30), scheduler: queue)
                .retry(1)
                .sink(receiveCompletion: { _ in finished.signal() }, receiveValue: { received.append($0) })
                .store(in: &cancellables)
            #expect(finished.wait(timeout: .now() + .seconds(10)) == .success)
            queue.sync {}
        }
        #expect(received == [1])
        #expect(diagnoses.isEmpty, "\(diagnoses.map(\.message))")
        let library = LibraryFinding.find(in: TraceLifecycles(trace))
        let leak = try #require(library.first { $0.types.contains("Retry.Inner") }, "\(library)")
        #expect(leak.code == "library-leak" && leak.count == 1)
        #expect(leak.reason.contains("completed at @"), "\(leak.reason)")
        let text = TextDiagnosisReport(trace: trace, diagnoses: diagnoses, library: library).render()
        #expect(text.contains("Combine's own (its implementation's problems, not your code's; not counted above)"), "\(text)")
        #expect(text.contains("1 × library-leak Retry.Inner, Timeout.Inner: "), "\(text)")
        #expect(text.hasPrefix("No lifecycle problems found"), "\(text)")
        withExtendedLifetime(cancellables) {}
    }
}

extension ProvenLeakVerdictTests {
    /// OpenCombine's `Future` hands its subscription over outside its lock: a promise fulfilled
    /// on another queue delivers while the subscriber's `receive(subscription:)` still runs. The
    /// implementation's race, listed apart, not the program's `concurrent-delivery`.
    @Test func aFuturesResultOvertakingItsHandshakeIsCombinesOwnRaceNotTheProgramsError() throws {
        let queue = DispatchQueue(label: "network")
        let kept = KeptPromise()
        let future = Future<Int, Never> { kept.promise = $0 }
        let waiter = HandshakeWaiter { queue.async { kept.promise?(.success(1)) } }
        let (trace, diagnoses) = try findings {
            future.subscribe(waiter)
            queue.sync {}
        }
        withExtendedLifetime(waiter) {}
        #expect(waiter.overtaken, "the value did not arrive during the handshake")
        #expect(!diagnoses.contains { $0.code == "concurrent-delivery" }, "\(diagnoses.map(\.message))")
        let library = LibraryFinding.find(in: TraceLifecycles(trace))
        let race = try #require(library.first { $0.code == "library-race" }, "\(library)")
        #expect(race.types == ["Future.Conduit"] && race.count == 1, "\(race)")
        #expect(race.summary.contains("overtook the handshake that handed it over"), "\(race.summary)")
        #expect(race.reason.hasSuffix("Future.Conduit hands a subscription over outside its lock"), "\(race.reason)")
    }
}

extension ProvenLeakVerdictTests {
    /// Owns a subject that keeps its cancelled subscriptions, and a cache of finished
    /// subscriptions' AnyCancellables, the way a long-lived service does.
    final class FeedService {
        let feed = ReplayingSubject<Int>(bufferSize: 1)
        var finished: [AnyCancellable] = []

        func churn() {
            for _ in 0..<3 { feed.sink { _ in }.cancel() }
            let done = Just(1).sink { _ in }
            finished.append(done)
        }
    }

    /// The codes and fingerprints of a recording of the service's churn, with `tracked`
    /// registered with `Lifeline.track`, or nothing.
    private func verdicts(tracking tracked: AnyObject?) throws -> [String] {
        let service = FeedService()
        let (_, diagnoses) = try findings {
            if let tracked { Lifeline.track(tracked, name: "Screen") }
            service.churn()
        }
        withExtendedLifetime((service, tracked)) {}
        return diagnoses.map { "\($0.code) \($0.fingerprint)" }
    }

    /// Whether the program registered a root (here an unrelated screen) must not change a
    /// verdict: the subject's kept subscriptions are a leak either way, and the finished sink
    /// that the service, which nothing in the graph reaches, keeps is no proven leak either way.
    @Test func whatTheProgramTrackedChangesNoVerdict() throws {
        let untracked = try verdicts(tracking: nil)
        let tracked = try verdicts(tracking: Screen())
        #expect(untracked == tracked)
        #expect(untracked.count == 1 && untracked[0].hasPrefix("leaked-subscription "), "\(untracked)")
    }
}

extension ProvenLeakVerdictTests {
    /// A `share()` left running on a subject nothing holds any more: what the loop alone keeps
    /// (the multicast's subject subscriber, which holds the shared subject weakly) is the loop's
    /// own, not a way in from outside.
    @Test func aSharedPipelineLeftRunningOnADroppedSubjectIsOutOfReach() throws {
        let (trace, diagnoses) = try findings {
            let upstream = PassthroughSubject<Int, Never>()
            upstream.prepend(-1).share().subscribe(KeepingSubscriber())
            upstream.send(0)
        }
        let cycle = try #require(diagnoses.first { $0.code == "retain-cycle" }, "\(diagnoses.map(\.message))")
        #expect(cycle.severity == .error)
        #expect(cycle.message.hasSuffix("so nothing can send to, complete or cancel the subscription any more."), "\(cycle.message)")
        let kept = try #require(trace.snapshots.last).edges.contains { edge in
            edge.ownership == .weak && trace.object(edge.from)?.shortTypeName.hasPrefix("SubjectSubscriber") == true
        }
        #expect(kept, "the multicast's subject subscriber no longer holds its subject weakly: the test no longer shows the case")
    }
}

