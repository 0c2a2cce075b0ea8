import Dispatch
import Lifeline
import LifelineAnalysis
import LifelineLog
import LifelineSamples
import LifelineTesting
import OpenCombineShim
import Testing

/// Every code, triggered by a real recording of a hand-written misbehaving publisher or
/// subscriber (or of a seed's story), naming the right objects and citing the right events.
@Suite("Misbehaving pipelines, recorded", .serialized)
struct MisbehavingPipelineTests {
    /// What a diagnosis names and cites, in words a test can compare: the objects' short
    /// type names, and each evidence event's kind and phase.
    struct Citation: Equatable, CustomStringConvertible {
        let code: String
        let objects: [String]
        let evidence: [String]

        init(_ diagnosis: Diagnosis, in trace: Trace) {
            code = diagnosis.code
            objects = diagnosis.objects.map { trace.object($0)?.shortTypeName ?? "?" }
            let events = Dictionary(uniqueKeysWithValues: trace.events.map { ($0.seq, $0) })
            evidence = diagnosis.evidence.map { seq in events[seq].map { "\($0.kind.name) \($0.phase.rawValue)" } ?? "missing" }
        }

        init(_ code: String, objects: [String], evidence: [String]) {
            self.code = code
            self.objects = objects
            self.evidence = evidence
        }

        var description: String { "\(code) \(objects) \(evidence)" }
    }

    /// Runs `body` in a lifecycle check and cites its problems.
    func citations(_ body: () throws -> Void) throws -> [Citation] {
        let findings = try LifecycleCheck().run(body)
        return findings.problems.map { Citation($0, in: findings.trace) }
    }

    @Test func aPublisherThatIgnoresDemandExceedsIt() throws {
        let subscriber = RecordingSubscriber(requesting: .max(1))
        let cited = try citations { ContractBreakingPublisher(breach: .sendsBeyondDemand).subscribe(subscriber) }
        #expect(cited == [Citation(
            "demand-exceeded", objects: ["BreachingSubscription", "RecordingSubscriber", "ContractBreakingPublisher"],
            evidence: ["request begin", "value begin"]
        )])
        #expect(subscriber.outcome.events == ["1", "2", "3", "finished"])
    }

    @Test func aPublisherThatSendsAfterFinishingSendsAValueAfterCompletion() throws {
        let cited = try citations {
            ContractBreakingPublisher(breach: .sendsAfterCompletion).subscribe(RecordingSubscriber(requesting: .unlimited))
        }
        #expect(cited == [Citation(
            "value-after-completion", objects: ["RecordingSubscriber", "BreachingSubscription", "ContractBreakingPublisher"],
            evidence: ["completion begin", "value begin"]
        )])
    }

    @Test func aPublisherThatFinishesTwiceCompletesTwice() throws {
        let cited = try citations {
            ContractBreakingPublisher(breach: .completesTwice).subscribe(RecordingSubscriber(requesting: .unlimited))
        }
        #expect(cited == [Citation(
            "duplicate-completion", objects: ["RecordingSubscriber", "BreachingSubscription", "ContractBreakingPublisher"],
            evidence: ["completion begin", "completion begin"]
        )])
    }

    @Test func aPublisherThatSubscribesTwiceHandsASecondSubscription() throws {
        let cited = try citations {
            ContractBreakingPublisher(breach: .subscribesTwice).subscribe(RecordingSubscriber(requesting: .unlimited))
        }
        #expect(cited == [Citation(
            "duplicate-subscription",
            objects: ["RecordingSubscriber", "BreachingSubscription", "BreachingSubscription", "ContractBreakingPublisher"],
            evidence: ["receive_subscription begin", "receive_subscription begin"]
        )])
    }

    @Test func aPublisherThatSendsFirstSendsAValueBeforeTheSubscription() throws {
        let cited = try citations {
            ContractBreakingPublisher(breach: .sendsBeforeSubscription).subscribe(RecordingSubscriber(requesting: .unlimited))
        }
        #expect(cited == [Citation(
            "value-before-subscription", objects: ["RecordingSubscriber", "ContractBreakingPublisher"],
            evidence: ["subscribe begin", "value begin"]
        )])
    }

    @Test func aSubscriberThatRequestsNoneMakesAZeroDemandRequest() throws {
        let subscriber = RecordingSubscriber(requesting: .none, .max(1))
        let cited = try citations { ContractBreakingPublisher(breach: .none).subscribe(subscriber) }
        #expect(cited == [Citation(
            "zero-demand-request", objects: ["BreachingSubscription", "RecordingSubscriber"], evidence: ["request begin"]
        )])
        #expect(subscriber.outcome.events == ["1", "finished"])
    }

    @Test func aPublisherThatSendsFromTwoThreadsDeliversConcurrently() throws {
        let cited = try citations {
            let subscriber = RendezvousSubscriber()
            ContractBreakingPublisher(breach: .sendsFromTwoThreadsAtOnce).subscribe(subscriber)
            subscriber.start()
            #expect(subscriber.finished.wait(timeout: DispatchTime.now() + DispatchTimeInterval.seconds(10)) == .success)
        }
        #expect(cited == [Citation(
            "concurrent-delivery", objects: ["RendezvousSubscriber", "BreachingSubscription", "ContractBreakingPublisher"],
            evidence: ["value begin", "value begin", "value end"]
        )])
    }

    @Test func aSubscriptionThatFinishesWhenCancelledCompletesDuringTheCancel() throws {
        let subscriber = RecordingSubscriber(requesting: .max(2))
        let cited = try citations {
            TeardownFeed(teardown: .finishesOnCancel).subscribe(subscriber)
            subscriber.cancel()
        }
        #expect(cited == [Citation(
            "completion-during-cancel", objects: ["TeardownFeed.Subscription", "RecordingSubscriber", "TeardownFeed"],
            evidence: ["cancel begin", "completion begin", "cancel end"]
        )])
        // The subscriber's completion path ran inside its own cancel.
        #expect(subscriber.outcome.events == ["1", "2", "finished"])
    }

    @Test func aCompletionDuringACancelForwardedDownAChainIsReportedOnceWhereItWasSent() throws {
        let findings = try LifecycleCheck().run {
            let token = TeardownFeed(teardown: .finishesOnCancel).map { $0 * 2 }.sink { _ in }
            token.cancel()
        }
        let cited = findings.problems.map { Citation($0, in: findings.trace) }
        #expect(cited == [Citation(
            "completion-during-cancel", objects: ["TeardownFeed.Subscription", "Map.Inner", "TeardownFeed"],
            evidence: ["cancel begin", "completion begin", "cancel end"]
        )], "\(findings.failureMessage)")
        let message = try #require(findings.problems.first?.message)
        #expect(message.contains(/^TeardownFeed.Subscription #[0-9]+[^,]* sent Map.Inner #[0-9]+[^,]* \.finished \(@[0-9]+\) from inside its cancel\(\) \(@[0-9]+, returned at @[0-9]+\)/), "\(message)")
    }

    @Test func aSubscriptionThatLetsGoSilentlyWhenCancelledKeepsTheContract() throws {
        let subscriber = RecordingSubscriber(requesting: .max(2))
        let cited = try citations {
            TeardownFeed(teardown: .silent).subscribe(subscriber)
            subscriber.cancel()
        }
        #expect(cited.isEmpty, "\(cited)")
        #expect(subscriber.outcome.events == ["1", "2"])
    }

    @Test func aSubscriberThatStopsAskingStalls() throws {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = RecordingSubscriber(requesting: .max(1))
        let trace = try Lifeline.record {
            subject.subscribe(subscriber)
            subject.send(1)
            subject.send(2)
        }
        let cited = TraceAnalyzer().diagnose(trace).map { Citation($0, in: trace) }
        #expect(cited == [Citation(
            "demand-stalled", objects: ["RecordingSubscriber", "PassthroughSubject.Conduit", "PassthroughSubject"],
            evidence: ["receive_subscription begin", "request begin", "value begin", "value end"]
        )])
        #expect(subscriber.outcome.events == ["1"])
    }

    @Test func aDroppedAnyCancellableIsCancelledImmediately() throws {
        let subject = PassthroughSubject<Int, Never>()
        let cited = try citations {
            _ = subject.sink { _ in }
            subject.send(1)
        }
        #expect(cited == [Citation(
            "cancelled-immediately", objects: ["PassthroughSubject.Conduit", "Sink", "PassthroughSubject"],
            evidence: ["subscribe begin", "receive_subscription begin", "cancel begin"]
        )])
    }

    @Test func aTokenInALocalSetIsCancelledImmediatelyWhateverHappensBeforeTheFunctionReturns() throws {
        let articles = PassthroughSubject<Int, Never>()
        let status = CurrentValueSubject<String, Never>("idle")
        var statusText = ""
        let statusToken = status.sink { statusText = $0 }
        func watchWhileLoading() {
            var tokens = Set<AnyCancellable>()
            articles.sink { _ in }.store(in: &tokens)
            status.send("loading")
        }
        let cited = try citations {
            watchWhileLoading()
            articles.send(1)
        }
        statusToken.cancel()
        #expect(statusText == "loading")
        #expect(cited == [Citation(
            "cancelled-immediately", objects: ["PassthroughSubject.Conduit", "Sink", "PassthroughSubject"],
            evidence: ["subscribe begin", "receive_subscription begin", "cancel begin"]
        )])
    }

    @Test func aDeliberateCancelRightAfterSubscribingIsNotADroppedToken() throws {
        let settings = CurrentValueSubject<Bool, Never>(true)
        var value = false
        let cited = try citations {
            let peek = settings.sink { value = $0 }
            peek.cancel()
        }
        #expect(value)
        #expect(cited.isEmpty, "\(cited)")
    }

    @Test func aTokenReplacedByTheNextSubscribeFromTheSameLineIsNotCancelledImmediately() throws {
        let results = PassthroughSubject<Int, Never>()
        var request: AnyCancellable?
        func search() { request = results.sink { _ in } }
        let cited = try citations {
            search()
            search()
            results.send(1)
            request = nil
        }
        #expect(request == nil)
        #expect(cited.isEmpty, "\(cited)")
    }

    @Test func aCancelAfterAMarkIsADeliberateCancelNotADroppedCancellable() throws {
        let subject = PassthroughSubject<Int, Never>()
        let cited = try citations {
            let search = subject.sink { _ in }
            Lifeline.mark("the user typed again")
            search.cancel()
        }
        #expect(cited.isEmpty, "\(cited)")
    }

    @Test func theForgottenSubscriptionNamesTheSubscriptionThatDied() throws {
        let cited = try citations { SampleScenario.forgottenSubscription.run(SampleConsole()) }
        #expect(cited == [
            Citation("subscription-not-retained",
                     objects: ["DecodedDataTaskPublisher.DecodedDataTaskSubscription", "DecodableDataTaskSubscriber", "DecodedDataTaskPublisher"],
                     evidence: ["receive_subscription begin", "receive_subscription end", "deallocation instant"]),
        ])
    }

    @Test func aSubscriberItsLiveSubscriptionLetGoOfDiedEarly() throws {
        let feed = DroppingFeed()
        let cited = try citations {
            feed.subscribe(RecordingSubscriber(requesting: .max(3)))
            feed.goOffline()
        }
        feed.close()
        #expect(cited == [Citation(
            "subscriber-deallocated-early", objects: ["RecordingSubscriber", "DroppingFeed.Subscription", "DroppingFeed"],
            evidence: ["receive_subscription begin", "request begin", "deallocation instant"]
        )])
    }

    @Test func aTimerThatOutlivesItsCancelDeliversValuesAfterIt() throws {
        let queue = DispatchQueue(label: "ticker")
        let ticking = TickingPublisher(queue: queue, interval: .milliseconds(5))
        let firstValue = DispatchSemaphore(value: 0)
        let findings = try LifecycleCheck().run {
            queue.suspend()
            let cancellable = ticking.sink { if $0 == 1 { firstValue.signal() } }
            queue.resume()
            #expect(firstValue.wait(timeout: .now() + .seconds(10)) == .success)
            cancellable.cancel()
            #expect(ticking.stopped.wait(timeout: .now() + .seconds(10)) == .success)
        }
        let cited = findings.problems.map { Citation($0, in: findings.trace) }
        #expect(cited == [Citation(
            "value-after-cancel", objects: ["TickingPublisher.Ticker", "Sink", "TickingPublisher"],
            evidence: ["cancel begin", "cancel end", "value begin"]
        )], "\(findings.trace.events.map { "\($0.seq) \($0.thread) \($0.phase) \($0.kind)" })")
    }
}
