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
    /// A snapshot's nodes, every one alive, and references, built up with a script.
    private struct LiveGraph {
        var nodes: [TraceSnapshot.Node] = []
        var edges: [TraceSnapshot.Edge] = []

        mutating func node(_ id: TraceObjectID, _ kind: TraceSnapshot.Node.Kind) {
            nodes.append(TraceSnapshot.Node(id: id, kind: kind, retainCounts: .init(strong: 1, weak: 0, unowned: 0), alive: true))
        }

        /// A strong reference from `from` to `to` through `field`.
        mutating func holds(_ from: TraceObjectID, _ to: TraceObjectID, _ field: String) {
            edges.append(.init(from: from, to: to, field: field, ownership: .strong))
        }

        /// The snapshot taken at stop after event `seq`.
        func stopSnapshot(after seq: UInt64) -> TraceSnapshot {
            TraceSnapshot(index: 1, seq: seq, label: "stop", reason: .stop, nodes: nodes, edges: edges)
        }
    }

    @Test func thousandsOfLoopsKeepingCancelledSinksAtStopAreExplainedInLinearTime() {
        var script = TraceScript()
        var graph = LiveGraph()
        let subject = script.object("PassthroughSubject", .publisher)
        graph.node(subject, .subject)
        for _ in 0..<Self.leakingViewModels {
            let conduit = script.object("PassthroughSubject.Conduit", .subscription)
            let sink = script.object("Sink", .subscriber)
            let viewModel = script.object("ViewModel", .object)
            let set = script.object("Set<AnyCancellable>", .object)
            let cancellable = script.object("AnyCancellable", .object)
            script.subscribe(subject, sink) { $0.receiveSubscription(sink, conduit) { $0.request(conduit, .unlimited) } }
            script.cancel(conduit)
            graph.node(sink, .subscriber)
            graph.node(viewModel, .object)
            graph.node(set, .collection)
            graph.node(cancellable, .cancellable)
            graph.holds(viewModel, set, "cancellables")
            graph.holds(set, cancellable, "[0]")
            graph.holds(cancellable, sink, "_cancel (closure)")
            graph.holds(sink, viewModel, "receiveValue (closure)")
        }
        script.snapshots = [graph.stopSnapshot(after: script.nextSeq - 1)]
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
        var graph = LiveGraph()
        let subject = script.object("PassthroughSubject", .publisher)
        graph.node(subject, .subject)
        let begin = script.mark("begin")
        for _ in 0..<Self.leakingViewModels {
            let conduit = script.object("PassthroughSubject.Conduit", .subscription)
            let sink = script.object("Sink", .subscriber)
            let viewModel = script.object("ViewModel", .object)
            script.subscribe(subject, sink) { $0.receiveSubscription(sink, conduit) { $0.request(conduit, .unlimited) } }
            graph.node(conduit, .subscription)
            graph.node(sink, .subscriber)
            graph.node(viewModel, .object)
            graph.holds(subject, conduit, "downstreams")
            graph.holds(conduit, sink, "downstream")
            graph.holds(sink, viewModel, "receiveValue (closure)")
        }
        let end = script.mark("end")
        script.snapshots = [graph.stopSnapshot(after: end)]
        let trace = script.trace()
        let rule = LeakedSubscriptionRule(scope: ObservedScope(begin: begin, end: end))
        let leaks = measured("4,000 pipelines leaked from a scope", events: trace.events.count) { rule.diagnose(TraceLifecycles(trace)) }
        #expect(leaks.count == Self.leakingViewModels)
        #expect(leaks.allSatisfy { $0.message.contains("In snapshot 1 \"stop\"") }, "\(leaks.prefix(2).map(\.message))")
    }
}
