import LifelineAnalysis
import LifelineLog
import Testing
@testable import LifelineRender

/// `--pipeline`, `--between` and `--finding`: each picture drawn from the chosen part of a
/// trace, compared with its reviewed golden file, and unknown choices refused with the list
/// of known ones.
@Suite struct SelectionGoldenTests {
    static var schedulers: GoldenFileTests.Sample {
        SampleFixtures.samples.first { $0.name == "schedulers" }!
    }

    /// Two sinks on one subject, with marks around the second phase.
    static var phases: Trace {
        var script = TraceScript()
        script.processName = "phases"
        let subject = script.object(1, .publisher, "PassthroughSubject")
        let first = script.object(2, .subscriber, "Subscribers.Sink")
        let firstConduit = script.object(3, .subscription, "PassthroughSubject.Conduit")
        let second = script.object(4, .subscriber, "Subscribers.Sink")
        let secondConduit = script.object(5, .subscription, "PassthroughSubject.Conduit")
        for (sink, conduit) in [(first, firstConduit), (second, secondConduit)] {
            script.call(.subscribe(publisher: subject, subscriber: sink)) {
                $0.call(.receiveSubscription(subscriber: sink, subscription: conduit)) {
                    $0.call(.request(subscription: conduit, demand: .unlimited))
                }
            }
        }
        script.call(.value(subscriber: first, returnedDemand: nil, value: "before"), returning: .none)
        script.event(.instant, .mark(label: "loading"))
        for value in ["a", "b"] {
            script.call(.value(subscriber: first, returnedDemand: nil, value: value), returning: .none)
            script.call(.value(subscriber: second, returnedDemand: nil, value: value), returning: .none)
        }
        script.event(.instant, .mark(label: "loaded"))
        script.call(.cancel(subscription: secondConduit))
        return script.trace
    }

    @Test func onePipeline() throws {
        let sample = Self.schedulers
        let chosen = try TraceSelection(pipelines: ["P4"]).apply(to: sample.trace, diagnoses: sample.diagnoses)
        #expect(chosen.diagnoses.count == 1)
        Snapshot.assertMatches(SequenceSVGRenderer.render(chosen.trace, diagnoses: chosen.diagnoses),
                               file: "schedulers.pipeline-P4.sequence.svg")
        Snapshot.assertMatches(TimelineRenderer(showsTimes: false).render(chosen.trace), file: "schedulers.pipeline-P4.timeline.txt")
    }

    @Test func betweenTwoMarks() throws {
        let chosen = try TraceSelection(between: .init(from: "loading", to: "loaded")).apply(to: Self.phases, diagnoses: [])
        #expect(chosen.trace.events.count == 10)
        Snapshot.assertMatches(SequenceSVGRenderer.render(chosen.trace), file: "phases.between.sequence.svg")
        Snapshot.assertMatches(MarbleSVGRenderer.render(chosen.trace), file: "phases.between.marbles.svg")
    }

    @Test func oneFinding() throws {
        let sample = Self.schedulers
        let chosen = try TraceSelection(finding: 1).apply(to: sample.trace, diagnoses: sample.diagnoses)
        #expect(chosen.diagnoses == [sample.diagnoses[0]])
        #expect(Set(chosen.trace.events.map(\.seq)).isSuperset(of: sample.diagnoses[0].evidence))
        Snapshot.assertMatches(SequenceSVGRenderer.render(chosen.trace, diagnoses: chosen.diagnoses),
                               file: "schedulers.finding-1.sequence.svg")
        Snapshot.assertMatches(MermaidSequenceRenderer.render(chosen.trace, diagnoses: chosen.diagnoses),
                               file: "schedulers.finding-1.sequence.mmd")
    }

    @Test func unknownChoicesListTheKnownOnes() {
        let sample = Self.schedulers
        #expect(throws: TraceSelectionError.unknownPipeline("P9", known: ["P1 (Sink #1)", "P2 (Sink #13)", "P3 (Sink #22)", "P4 (Sink #25)"])) {
            try TraceSelection(pipelines: ["P9"]).apply(to: sample.trace, diagnoses: sample.diagnoses)
        }
        #expect(throws: TraceSelectionError.unknownMark("start", known: ["story begins", "story ends"])) {
            try TraceSelection(between: .init(from: "start", to: "story ends")).apply(to: sample.trace, diagnoses: [])
        }
        #expect(throws: TraceSelectionError.noMarkAfter("story begins", after: "story ends")) {
            try TraceSelection(between: .init(from: "story ends", to: "story begins")).apply(to: sample.trace, diagnoses: [])
        }
        #expect(throws: TraceSelectionError.unknownFinding(2, count: 1)) {
            try TraceSelection(finding: 2).apply(to: sample.trace, diagnoses: sample.diagnoses)
        }
    }

    /// A picture of part of a trace keeps the whole trace's finding numbers, the ones
    /// `--finding N` and `lifeline pipelines` use.
    @Test func aChosenFindingKeepsItsNumber() throws {
        // The retain-cycle story diagnosed as the gallery does, with its run as the observed
        // scope: a retain cycle and the leak it causes.
        let trace = SampleFixtures.samples.first { $0.name == "retain-cycle" }!.trace
        let scope = try #require(ObservedScope(trace: trace, beginMark: "story begins", endMark: "story ends"))
        let diagnoses = TraceAnalyzer(rules: TraceAnalyzer.standardRules + [LeakedSubscriptionRule(scope: scope)]).diagnose(trace)
        #expect(diagnoses.count == 2)
        let chosen = try TraceSelection(finding: 2).apply(to: trace, diagnoses: diagnoses)
        var options = SequenceDiagramOptions()
        options.findingNumbers = chosen.findingNumbers
        let mermaid = MermaidSequenceRenderer.render(chosen.trace, diagnoses: chosen.diagnoses, options: options)
        #expect(mermaid.contains("2 error: \(diagnoses[1].code)"))
        #expect(!mermaid.contains("1 error:"))
    }

    /// A pipeline's ownership graph is drawn from the snapshot taken at stop, after the
    /// pipeline's last event, with only its objects; `--between` keeps only the snapshots
    /// taken between the marks.
    @Test func aPipelinesGraphComesFromTheSnapshotAtStop() throws {
        let phases = Self.phases
        let last = try #require(phases.events.last?.seq)
        let counts = TraceSnapshot.RetainCounts(strong: 1, weak: 0, unowned: 0)
        let node = { (raw: UInt64, kind: TraceSnapshot.Node.Kind) in
            TraceSnapshot.Node(id: TraceObjectID(raw), kind: kind, retainCounts: counts, alive: true)
        }
        let stop = TraceSnapshot(
            index: 1, seq: last, label: "stop", reason: .stop,
            nodes: [node(1, .subject), node(2, .subscriber), node(3, .subscription), node(4, .subscriber), node(5, .subscription)],
            edges: [
                .init(from: TraceObjectID(2), to: TraceObjectID(3), field: "subscription", ownership: .strong),
                .init(from: TraceObjectID(4), to: TraceObjectID(5), field: "subscription", ownership: .strong),
            ]
        )
        let trace = Trace(header: phases.header, objects: phases.objects, threads: phases.threads, queues: phases.queues,
                          events: phases.events, snapshots: [stop], damage: [])
        let first = try TraceSelection(pipelines: ["P1"]).apply(to: trace, diagnoses: [])
        let snapshot = try #require(first.trace.snapshots.last, "the snapshot at stop is kept for a pipeline")
        #expect(Set(snapshot.nodes.map(\.id)) == [TraceObjectID(1), TraceObjectID(2), TraceObjectID(3)])
        let between = try TraceSelection(between: .init(from: "loading", to: "loaded")).apply(to: trace, diagnoses: [])
        #expect(between.trace.snapshots.isEmpty, "a snapshot taken after the marks is not drawn between them")
    }
}
