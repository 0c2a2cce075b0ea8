import LifelineAnalysis
import LifelineLog
import LifelineRender
import Testing
@testable import LifelineRender

/// The text outputs (timeline, diagnosis report) and the diagram sources keep a hostile label
/// on its line and out of the terminal, and a damaged log's unbalanced calls draw without a
/// trap.
@Suite struct TextSafetyTests {
    /// Every character that starts a line, moves the cursor, drives a terminal or reorders text.
    static let lineBreakers = "a\nforged\rline\u{0}nul\u{1B}[2Jesc\u{9B}csi\u{85}nel\u{2028}ls\u{2029}ps\u{202E}rlo\u{200F}rlm\u{B}vt\u{C}ff"

    static var hostile: Trace {
        var script = TraceScript()
        script.processName = lineBreakers
        script.threads[1] = TraceThread(tid: 1, name: lineBreakers)
        let subject = TraceObjectID(1), sink = TraceObjectID(2), conduit = TraceObjectID(3)
        for (id, role) in [(subject, TraceObjectRole.publisher), (sink, .subscriber), (conduit, .subscription)] {
            script.objects[id] = TraceObject(id: id, role: role, typeName: lineBreakers, shortTypeName: lineBreakers,
                                             label: lineBreakers, sourceLocation: TraceSourceLocation(file: lineBreakers, line: 1, function: lineBreakers), lifetimeTracked: true)
        }
        script.call(.subscribe(publisher: subject, subscriber: sink)) {
            $0.call(.receiveSubscription(subscriber: sink, subscription: conduit)) {
                $0.call(.request(subscription: conduit, demand: .max(1)))
            }
        }
        script.event(.instant, .mark(label: lineBreakers))
        script.call(.value(subscriber: sink, returnedDemand: nil, value: lineBreakers))
        script.call(.completion(subscriber: sink, completion: .failure(lineBreakers)))
        script.event(.instant, .deallocation(object: sink, evidence: .observed(aliveAtSeq: 3)))
        return script.trace
    }

    /// Whether `text` holds a character that a terminal or an editor reads as a line break or
    /// a control, or that reorders text.
    static func hasUnsafeCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(scalar.value)
                || [0x2028, 0x2029, 0x202E, 0x200F].contains(scalar.value)
        }
    }

    @Test func theTimelineKeepsEveryCallOnItsLine() {
        let text = TimelineRenderer(showsTimes: false).render(Self.hostile)
        #expect(!Self.hasUnsafeCharacter(text))
        // Heading, three objects, a blank line, the column heading, one line per begin or instant.
        let shownEvents = Self.hostile.events.filter { $0.phase != .end }.count
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count == 1 + 3 + 1 + 1 + shownEvents + 1)
        #expect(text.contains(#"a\nforged\rline\0nul\u{1B}[2Jesc\u{9B}csi\u{85}nel\u{2028}ls\u{2029}ps\u{202E}rlo\u{200F}rlm\u{B}vt\u{C}ff"#))
    }

    @Test func theDiagnosisReportKeepsEveryFindingOnItsLine() {
        let trace = Self.hostile
        let hop = Hop(publisher: TraceObjectID(1), subscription: TraceObjectID(3), subscriber: TraceObjectID(2))
        let report = TextDiagnosisReport(trace: trace, diagnoses: [Diagnosis(
            code: "c", severity: .error, objects: [TraceObjectID(2)], evidence: [1, 2, 7],
            message: Self.lineBreakers, fix: Self.lineBreakers, hop: hop
        )]).render()
        #expect(!Self.hasUnsafeCharacter(report))
        // The summary, the note that the log's lack of snapshots left retain cycles unchecked, a
        // blank line, the hop's heading, the finding, three events and the fix.
        #expect(report.split(separator: "\n", omittingEmptySubsequences: false).count == 9 + 1, "\(report)")
        #expect(report.contains(#"  error c: a\nforged\rline\0nul\u{1B}[2Jesc"#))
    }

    @Test func mermaidAndPlantUMLWriteLineSeparatorsAsEscapes() throws {
        let trace = Self.hostile
        for source in [MermaidSequenceRenderer.render(trace), PlantUMLSequenceRenderer.render(trace)] {
            #expect(!source.unicodeScalars.contains { [0x2028, 0x2029, 0x85].contains($0.value) })
        }
        try OutputCheck.checkPlantUML(PlantUMLSequenceRenderer.render(trace))
    }

    @Test func theOwnershipGraphKeepsALabelOnItsLine() {
        let snapshot = TraceSnapshot(index: 1, seq: 3, label: Self.lineBreakers, reason: .requested, nodes: [
            TraceSnapshot.Node(id: TraceObjectID(2), kind: .root, name: Self.lineBreakers, retainCounts: nil, alive: true),
        ], edges: [])
        let dot = OwnershipDOTRenderer.render(snapshot, in: Self.hostile)
        #expect(!Self.hasUnsafeCharacter(dot))
        #expect(dot.contains(#"a\\nforged\\rline"#), "a newline in a label is a line break in the node: \(dot.prefix(400))")
    }

    /// A log whose begin lines were lost (zero bytes where they stood): the calls end more
    /// often than they began. Every renderer draws it.
    @Test func moreEndsThanBeginsDrawsInEveryFormat() {
        var script = TraceScript()
        let subject = script.object(1, .publisher, "PassthroughSubject")
        let sink = script.object(2, .subscriber, "Subscribers.Sink")
        let conduit = script.object(3, .subscription, "PassthroughSubject.Conduit")
        for _ in 0..<3 { script.event(.end, .request(subscription: conduit, demand: .max(1))) }
        script.event(.end, .subscribe(publisher: subject, subscriber: sink))
        script.call(.value(subscriber: sink, returnedDemand: nil, value: "1"))
        for _ in 0..<2 { script.event(.end, .value(subscriber: sink, returnedDemand: .max(1), value: "1")) }
        script.call(.cancel(subscription: conduit))
        let trace = script.trace
        let timeline = TimelineRenderer(showsTimes: false).render(trace)
        #expect(timeline.contains("Subscribers.Sink #2.receive(\"1\")"))
        #expect(timeline.contains("\n     @9  main  PassthroughSubject.Conduit #3.cancel()"), "\(timeline)")
        let diagnoses = TraceAnalyzer().diagnose(trace)
        #expect(!SequenceSVGRenderer.render(trace, diagnoses: diagnoses).isEmpty)
        #expect(!MermaidSequenceRenderer.render(trace, diagnoses: diagnoses).isEmpty)
        #expect(!PlantUMLSequenceRenderer.render(trace, diagnoses: diagnoses).isEmpty)
        #expect(!MarbleSVGRenderer.render(trace, options: .init(axis: .time)).isEmpty)
        #expect(!PerfettoTraceRenderer.render(trace).isEmpty)
        #expect(!TextDiagnosisReport(trace: trace, diagnoses: diagnoses).render().isEmpty)
    }
}
