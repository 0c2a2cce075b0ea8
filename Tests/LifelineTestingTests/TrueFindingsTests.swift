import Dispatch
import Lifeline
import LifelineAnalysis
import LifelineLog
import LifelineTesting
import OpenCombineShim
import Testing

/// Findings that the log contradicted on real programs (issue 10, "Every finding true", and
/// issue 24, "Misattribution"), each recorded from a real program: the false ones stay silent,
/// the true ones still fire, and each says what the log shows.
@Suite("Every finding true, recorded", .serialized)
struct TrueFindingsTests {
    /// The codes of the problems a lifecycle check of `body` finds.
    private func codes(draining queues: [DispatchQueue] = [], _ body: () throws -> Void) throws -> [String] {
        try LifecycleCheck(draining: queues).run(body).problems.map(\.code)
    }

    @Test func aSubscriberThatOutlivesItsForgottenSubscriptionWasNotDeallocatedEarly() throws {
        let queue = DispatchQueue(label: "upload")
        var analytics: ForgetfulSubscriber? = ForgetfulSubscriber()
        let found = try codes(draining: [queue]) {
            // The answer waits until the handshake is over, so that it cannot overlap it.
            queue.suspend()
            WeaklyHeldUpload(queue: queue).subscribe(analytics!)
            queue.resume()
            queue.sync {}
            Lifeline.mark("the app goes on, then lets the subscriber go")
            analytics = nil
        }
        #expect(found == ["subscription-not-retained"])
    }

    @Test func aPipelineTornDownAtOnceWasNotDeallocatedEarly() throws {
        // The feed holds its subscriptions and they hold their subscribers: when the feed's
        // owner lets it go, everything dies at once, subscriptions still open.
        let found = try codes {
            do {
                let feed = DroppingFeed()
                feed.subscribe(ForgetfulSubscriber())
                feed.map { $0 * 2 }.subscribe(ForgetfulSubscriber())
            }
        }
        #expect(found.isEmpty, "\(found)")
    }

    @Test func aSubscriberMadeBeforeTheBlockWhoseSubscriptionDiedInsideItDidNotLeak() throws {
        let queue = DispatchQueue(label: "upload")
        let analytics = ForgetfulSubscriber()
        let found = try codes(draining: [queue]) {
            queue.suspend()
            WeaklyHeldUpload(queue: queue).subscribe(analytics)
            queue.resume()
        }
        withExtendedLifetime(analytics) {}
        #expect(found == ["subscription-not-retained"])
    }

    @Test func aStrongSelfSinkOnAFiniteRequestIsNoRetainCycleOnceTheRequestFinished() throws {
        let queue = DispatchQueue(label: "network")
        let model = ProfileModel()
        let trace = try Lifeline.record(options: RecordingOptions(snapshots: .everyCall)) {
            // The network answers only once the snapshot has seen the request running.
            queue.suspend()
            model.load(on: queue)
            Lifeline.snapshot("loading")
            queue.resume()
            #expect(model.loaded.wait(timeout: .now() + .seconds(10)) == .success)
            queue.sync {}
        }
        withExtendedLifetime(model) {}

        // The loop was there while the request ran (the automatic snapshot after the subscribe
        // call is taken before the AnyCancellable is stored)…
        let graphs = trace.snapshots.map { OwnershipGraph(snapshot: $0, trace: trace) }
        #expect(graphs.contains { graph in
            graph.strongCycles.contains { cycle in cycle.objects.contains { trace.object($0)?.shortTypeName == "ProfileModel" } }
        }, "no snapshot saw the request running")
        // …and later snapshots show the live sink without its closure: the loop was broken.
        let codes = TraceAnalyzer().diagnose(trace).map(\.code)
        #expect(codes.isEmpty, "\(codes)")
    }

    // Issue 24, "Misattribution": each sentence says what the log shows.

    /// The kinds of the events a diagnosis cites, and the short type name of each one's
    /// receiver (the subscriber of a value or completion, the subscription of a request).
    private func cited(_ diagnosis: Diagnosis, in trace: Trace) -> [String] {
        let events = Dictionary(uniqueKeysWithValues: trace.events.map { ($0.seq, $0) })
        return diagnosis.evidence.map { seq in
            guard let event = events[seq] else { return "missing" }
            var objects: [TraceObjectID] = []
            event.kind.forEachObject { objects.append($0) }
            let receiver = objects.first.flatMap { trace.object($0)?.shortTypeName } ?? "?"
            return "\(event.kind.name) \(event.phase.rawValue) \(receiver)"
        }
    }

    @Test func aTokenDroppedAfterAFilterDroppedTheValueSaysTheValueArrivedUpstream() throws {
        let threshold = CurrentValueSubject<Int, Never>(1)
        // `_ =` drops the token: the subject's value reaches the filter during the subscribe
        // call, the filter drops it, and the pipeline is cancelled as the function returns.
        func watchLargeValues() { _ = threshold.filter { $0 > 100 }.sink { _ in } }
        let findings = try LifecycleCheck().run { watchLargeValues() }
        #expect(findings.problems.map(\.code) == ["cancelled-immediately"], "\(findings.failureMessage)")
        let dropped = try #require(findings.problems.first)
        #expect(!dropped.message.contains("before any value arrived"), "\(dropped.message)")
        #expect(dropped.message.contains(/before any value reached Sink #[0-9]+[^,]*, though 1 value had reached Filter.Inner #[0-9]+[^,]* upstream at @[0-9]+ and had not been passed on: its AnyCancellable was released in watchLargeValues/), "\(dropped.message)")
        #expect(cited(dropped, in: findings.trace).contains("value begin Filter.Inner"), "\(findings.failureMessage)")
    }

    @Test func aTokenDroppedWhileValuesFromAnotherThreadWaitedInReceiveOnCountsThem() throws {
        // Sent on the feed's queue while the function waits for it, never at once.
        nonisolated(unsafe) let prices = PassthroughSubject<Int, Never>()
        let feed = DispatchQueue(label: "feed")
        let screen = DispatchQueue(label: "screen")
        // The screen's queue waits until the token is gone, so that the two prices the feed
        // sends on its own thread reach receive(on:) and go no further before the cancel.
        func showPrices() {
            let token = prices.receive(on: screen).sink { _ in }
            feed.async {
                prices.send(1)
                prices.send(2)
            }
            feed.sync {}
            _ = token
        }
        let findings = try LifecycleCheck(draining: [screen]).run {
            screen.suspend()
            showPrices()
            screen.resume()
        }
        #expect(findings.problems.map(\.code) == ["cancelled-immediately"], "\(findings.failureMessage)")
        let dropped = try #require(findings.problems.first)
        #expect(dropped.message.contains(/before any value reached Sink #[0-9]+[^,]*, though 2 values had reached ReceiveOn.Inner #[0-9]+[^,]* upstream, the first at @[0-9]+, and none had been passed on/), "\(dropped.message)")
        #expect(cited(dropped, in: findings.trace).contains("value begin ReceiveOn.Inner"), "\(findings.failureMessage)")
    }

    @Test func aValueNestedInTheSecondSubscriptionsRequestIsChargedToTheSecondSubscription() throws {
        // One subscriber subscribed twice: to a subject that sends its current value within the
        // demand, then to a publisher that sends three values for the one asked for, inside
        // the request the second subscription received.
        let subscriber = RecordingSubscriber(requesting: .max(1))
        let settings = CurrentValueSubject<Int, Never>(0)
        let findings = try LifecycleCheck().run {
            settings.subscribe(subscriber)
            ContractBreakingPublisher(breach: .sendsBeyondDemand).subscribe(subscriber)
            settings.send(completion: .finished)
        }
        #expect(subscriber.outcome.events == ["0", "1", "2", "3", "finished", "finished"])
        #expect(Set(findings.problems.map(\.code)) == ["demand-exceeded", "duplicate-subscription"], "\(findings.failureMessage)")
        let exceeded = try #require(findings.problems.first { $0.code == "demand-exceeded" })
        let subscription = try #require(exceeded.hop?.subscription)
        #expect(findings.trace.object(subscription)?.shortTypeName == "BreachingSubscription", "\(findings.failureMessage)")
        #expect(cited(exceeded, in: findings.trace) == ["request begin BreachingSubscription", "value begin RecordingSubscriber"])
        #expect(exceeded.message.contains("delivered value 2 to RecordingSubscriber"), "\(exceeded.message)")

        // The values and the completion nested in the second subscription's request are its
        // own; the subject's completion, sent after, ends the first.
        let lifecycles = TraceLifecycles(findings.trace)
        let hops = lifecycles.lifecycles(ofSubscriber: try #require(exceeded.hop?.subscriber))
        #expect(hops.map(\.deliveries.count) == [1, 3])
        #expect(hops.map(\.completions.count) == [1, 1])
    }
}

/// A profile screen whose sink captures `self` strongly and is stored in `self`, on a request
/// that finishes: the loop lasts until the request completes, then the sink lets go of its
/// closures.
private final class ProfileModel: @unchecked Sendable {
    let loaded = DispatchSemaphore(value: 0)
    private(set) var name: String?
    private var cancellables = Set<AnyCancellable>()

    func load(on queue: DispatchQueue) {
        Future<String, Never> { promise in
            nonisolated(unsafe) let promise = promise
            queue.asyncAfter(deadline: .now() + .milliseconds(5)) { promise(.success("Ada")) }
        }
        .sink { name in
            self.name = name
            self.loaded.signal()
        }
        .store(in: &cancellables)
    }
}
