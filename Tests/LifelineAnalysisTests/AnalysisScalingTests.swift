import LifelineLog
import Testing
@testable import LifelineAnalysis

/// The analysis stays in proportion to the log on the shapes that used to make it quadratic:
/// one subscriber subscribed again and again (`retry`), one subscription whose every value
/// is asked for by a request of its own, and thousands of cancelled sinks kept by retain
/// cycles at stop. The logs are generated in-process, with 100,000 resubscriptions, 50,000
/// paced values and 4,000 leaking view models; quadratic work (10⁹ to 10¹⁰ steps) would not
/// finish. Durations are printed as benchmark figures, never asserted.
@Suite struct AnalysisScalingTests {
    static let resubscriptions = 100_000
    static let pacedValues = 50_000
    static let leakingViewModels = 4_000

    private func measured<Result>(_ label: String, events: Int, _ work: () -> Result) -> Result {
        let clock = ContinuousClock()
        var result: Result?
        let duration = clock.measure { result = work() }
        print("benchmark: \(label): \(events) events diagnosed in \(duration)")
        return result!
    }

    @Test func aSubscriberResubscribedAHundredThousandTimesIsDiagnosedInLinearTime() {
        var script = TraceScript()
        let upstream = script.object("Fail", .publisher, tracked: false)
        let retry = script.object("Publishers.Retry.Inner", .subscriber)
        for _ in 0..<Self.resubscriptions {
            let subscription = script.object("Fail.Inner", .subscription, tracked: false)
            script.subscribe(upstream, retry) {
                $0.receiveSubscription(retry, subscription) { $0.request(subscription, .unlimited) }
            }
            script.complete(retry, .failure("boom"))
        }
        let trace = script.trace()
        let diagnoses = measured("100,000 resubscriptions", events: trace.events.count) { TraceAnalyzer().diagnose(trace) }
        #expect(diagnoses.isEmpty, "\(diagnoses.prefix(3).map(\.message))")
        let lifecycles = TraceLifecycles(trace)
        #expect(lifecycles.lifecycles.count == Self.resubscriptions)
        #expect(lifecycles.lifecycles.allSatisfy { lifecycles.overlappedLifecycle(for: $0) == nil })
    }

    @Test func fiftyThousandValuesEachAskedForAloneAreCheckedInLinearTime() {
        var script = TraceScript()
        let publisher = script.object("FeedPublisher", .publisher)
        let subscriber = script.object("PacedSubscriber", .subscriber)
        let subscription = script.object("FeedSubscription", .subscription)
        script.subscribe(publisher, subscriber) { $0.receiveSubscription(subscriber, subscription) }
        for _ in 0..<Self.pacedValues {
            script.request(subscription, .max(1))
            script.value(subscriber)
        }
        let overflow = script.nextSeq
        script.value(subscriber)
        script.complete(subscriber)
        let trace = script.trace()
        let diagnoses = measured("50,000 paced values", events: trace.events.count) { TraceAnalyzer().diagnose(trace) }
        #expect(diagnoses.map(\.code) == ["demand-exceeded"])
        #expect(diagnoses.first?.evidence.last == overflow)
        #expect(diagnoses.first?.evidence.count == Self.pacedValues + 1)
    }

    /// Each view model stores a sink whose closure captures it (the loop
    /// `ViewModel.cancellables → Set → AnyCancellable → Sink.receiveValue (closure) → ViewModel`)
    /// and cancels it: every cancelled sink is still alive at stop, held by a loop that nothing
    /// else holds, so every one leaked and sits on a loop of its own.
    @Test func thousandsOfLoopsKeepingCancelledSinksAtStopAreExplainedInLinearTime() {
        var script = TraceScript()
        var nodes: [TraceSnapshot.Node] = []
        var edges: [TraceSnapshot.Edge] = []
        func node(_ id: TraceObjectID, _ kind: TraceSnapshot.Node.Kind) {
            nodes.append(TraceSnapshot.Node(id: id, kind: kind, retainCounts: .init(strong: 1, weak: 0, unowned: 0), alive: true))
        }
        let subject = script.object("PassthroughSubject", .publisher)
        node(subject, .subject)
        for _ in 0..<Self.leakingViewModels {
            let conduit = script.object("PassthroughSubject.Conduit", .subscription)
            let sink = script.object("Sink", .subscriber)
            let viewModel = script.object("ViewModel", .object)
            let set = script.object("Set<AnyCancellable>", .object)
            let cancellable = script.object("AnyCancellable", .object)
            script.subscribe(subject, sink) { $0.receiveSubscription(sink, conduit) { $0.request(conduit, .unlimited) } }
            script.cancel(conduit)
            node(sink, .subscriber)
            node(viewModel, .object)
            node(set, .collection)
            node(cancellable, .cancellable)
            edges += [
                .init(from: viewModel, to: set, field: "cancellables", ownership: .strong),
                .init(from: set, to: cancellable, field: "[0]", ownership: .strong),
                .init(from: cancellable, to: sink, field: "_cancel (closure)", ownership: .strong),
                .init(from: sink, to: viewModel, field: "receiveValue (closure)", ownership: .strong),
            ]
        }
        script.snapshots = [TraceSnapshot(index: 1, seq: script.nextSeq - 1, label: "stop", reason: .stop, nodes: nodes, edges: edges)]
        let trace = script.trace()
        let diagnoses = measured("4,000 loops at stop", events: trace.events.count) { TraceAnalyzer().diagnose(trace) }
        let leaks = diagnoses.filter { $0.code == "leaked-subscription" }
        #expect(leaks.count == Self.leakingViewModels)
        #expect(leaks.allSatisfy { $0.severity == .error && $0.message.contains("retain cycle") }, "\(leaks.prefix(2).map(\.message))")
        #expect(diagnoses.filter { $0.code == "retain-cycle" }.count == Self.leakingViewModels)
    }

    /// Thousands of pipelines subscribed inside an observed scope are still running at stop:
    /// each is reported with what held its subscriber in the snapshot taken at stop, and all
    /// are explained from that one snapshot's graph.
    @Test func thousandsOfPipelinesLeakedFromAScopeAreExplainedFromOneGraph() throws {
        var script = TraceScript()
        var nodes: [TraceSnapshot.Node] = []
        var edges: [TraceSnapshot.Edge] = []
        func node(_ id: TraceObjectID, _ kind: TraceSnapshot.Node.Kind) {
            nodes.append(TraceSnapshot.Node(id: id, kind: kind, retainCounts: .init(strong: 1, weak: 0, unowned: 0), alive: true))
        }
        let subject = script.object("PassthroughSubject", .publisher)
        node(subject, .subject)
        let begin = script.mark("begin")
        for _ in 0..<Self.leakingViewModels {
            let conduit = script.object("PassthroughSubject.Conduit", .subscription)
            let sink = script.object("Sink", .subscriber)
            let viewModel = script.object("ViewModel", .object)
            script.subscribe(subject, sink) { $0.receiveSubscription(sink, conduit) { $0.request(conduit, .unlimited) } }
            node(conduit, .subscription)
            node(sink, .subscriber)
            node(viewModel, .object)
            edges += [
                .init(from: subject, to: conduit, field: "downstreams", ownership: .strong),
                .init(from: conduit, to: sink, field: "downstream", ownership: .strong),
                .init(from: sink, to: viewModel, field: "receiveValue (closure)", ownership: .strong),
            ]
        }
        let end = script.mark("end")
        script.snapshots = [TraceSnapshot(index: 1, seq: end, label: "stop", reason: .stop, nodes: nodes, edges: edges)]
        let trace = script.trace()
        let rule = LeakedSubscriptionRule(scope: ObservedScope(begin: begin, end: end))
        let leaks = measured("4,000 pipelines leaked from a scope", events: trace.events.count) { rule.diagnose(TraceLifecycles(trace)) }
        #expect(leaks.count == Self.leakingViewModels)
        #expect(leaks.allSatisfy { $0.message.contains("In snapshot 1 \"stop\"") }, "\(leaks.prefix(2).map(\.message))")
    }
}
