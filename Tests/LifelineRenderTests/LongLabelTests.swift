import LifelineAnalysis
import LifelineLog
import Testing
@testable import LifelineRender

/// A label of 120,000 right-to-left overrides (each written `\u{202E}` once escaped, so a
/// million characters) on an object a finding names, on a mark, a snapshot, a thread, a queue
/// and a value: every picture shows a cut of it ending in `…`, the full text up to
/// ``TraceText/limit`` characters where the format has room for it, and stays small. Drawing it
/// used to take over a minute, the note's line breaking being quadratic in the label's length
/// (the benchmark `lifeline-benchmarks` prints how long it takes now).
@Suite struct LongLabelTests {
    static let label = String(repeating: "\u{202E}", count: 120_000)

    static var trace: Trace {
        var script = TraceScript()
        script.threads[1] = TraceThread(tid: 1, name: label)
        script.queues[1] = TraceQueue(id: 1, label: label)
        script.queue = 1
        let subject = script.object(1, .publisher, "PassthroughSubject")
        let sink = script.object(2, .subscriber, "Subscribers.Sink", label: label)
        let conduit = script.object(3, .subscription, "PassthroughSubject.Conduit", label: label)
        script.event(.instant, .mark(label: label))
        script.call(.subscribe(publisher: subject, subscriber: sink)) {
            $0.call(.receiveSubscription(subscriber: sink, subscription: conduit)) {
                $0.call(.request(subscription: conduit, demand: .unlimited))
            }
        }
        script.call(.value(subscriber: sink, returnedDemand: nil, value: label))
        script.call(.completion(subscriber: sink, completion: .failure(label)))
        var trace = script.trace
        let counts = TraceSnapshot.RetainCounts(strong: 1, weak: 0, unowned: 0)
        trace = Trace(
            header: trace.header, objects: trace.objects, threads: trace.threads, queues: trace.queues, events: trace.events,
            snapshots: [TraceSnapshot(
                index: 1, seq: 10, label: label, reason: .stop,
                nodes: [.init(id: sink, kind: .subscriber, retainCounts: counts, alive: true),
                        .init(id: conduit, kind: .subscription, retainCounts: counts, alive: true)],
                edges: [.init(from: sink, to: conduit, field: label, ownership: .strong)])],
            damage: []
        )
        return trace
    }

    /// A finding that names the sink, label and all, as the rules name objects.
    static var diagnoses: [Diagnosis] {
        let name = "Sink \"\(label)\" #2"
        return [Diagnosis(code: "subscriber-deallocated-early", severity: .error, objects: [TraceObjectID(2)], evidence: [3, 8],
                          message: "\(name) was deallocated while \(name) still ran.", fix: "Keep \(name).")]
    }

    /// The label as the pictures write it: escaped, so a cut of it reads `\u{202E}\u{202E}…`.
    static let escaped = #"\u{202E}"#

    /// Every format, with the largest output each may reach for this trace: the visible
    /// text's cuts, plus one full text of ``TraceText/limit`` characters per tooltip or
    /// argument that carries it.
    static var outputs: [(name: String, text: String, bound: Int)] {
        let trace = Self.trace, diagnoses = Self.diagnoses
        var outputs: [(String, String, Int)] = []
        for folding in [true, false] {
            let options = SequenceDiagramOptions(folding: folding)
            outputs.append(("svg", SequenceSVGRenderer.render(trace, diagnoses: diagnoses, options: options), 40_000))
            outputs.append(("mermaid", MermaidSequenceRenderer.render(trace, diagnoses: diagnoses, options: options), 10_000))
            outputs.append(("plantuml", PlantUMLSequenceRenderer.render(trace, diagnoses: diagnoses, options: options), 10_000))
        }
        for axis in MarbleDiagramOptions.Axis.allCases {
            outputs.append(("marbles", MarbleSVGRenderer.render(trace, options: .init(axis: axis)), 40_000))
        }
        outputs.append(("perfetto", PerfettoTraceRenderer.render(trace), 100_000))
        outputs.append(("dot", OwnershipDOTRenderer.render(trace.snapshots[0], in: trace), 5_000))
        return outputs
    }

    @Test func everyFormatStaysSmallAndCutsTheLabel() {
        for (name, text, bound) in Self.outputs {
            #expect(text.utf8.count < bound, "\(name) is \(text.utf8.count) bytes")
            #expect(text.contains("…"), "\(name) does not cut the label")
        }
    }

    @Test func theSVGShowsACutAndItsTooltipsHoldTheLabelUpToTheLimit() {
        let svg = SequenceSVGRenderer.render(Self.trace, diagnoses: Self.diagnoses)
        let texts = OutputCheck.parseSVG(svg)
        // The sink's heading cuts the label, not the id.
        #expect(texts.contains { $0.contains(Self.escaped + Self.escaped) && $0.hasSuffix("…\" #2") }, "\(texts)")
        let titles = svg.components(separatedBy: "<title>").dropFirst().map { $0.prefix { $0 != "<" } }
        // The lane's tooltip, its type and the label, is the longest: cut at the limit (and
        // longer by the entities that write its quotes).
        let longest = titles.map(\.count).max() ?? 0
        #expect(longest > TraceText.limit - 100 && longest <= TraceText.limit + 20, "\(longest)")
    }

    @Test func anOwnershipGraphNodeCutsTheLabelBeforeItsId() {
        let dot = OwnershipDOTRenderer.render(Self.trace.snapshots[0], in: Self.trace)
        // DOT writes the quotes as `\"` and the escapes' backslashes as `\\`.
        #expect(dot.contains(#"Subscribers.Sink \"\\u{202E}\\u{202E}"#) && dot.contains(#"…\" #2"#), "\(dot.prefix(300))")
    }

    /// A finding's note, wrapped, reads as many lines of the label as the note has room for,
    /// each at most the line's width.
    @Test func aNoteWrapsTheLabelIntoItsLines() {
        let lines = SequenceSVGLayout.wrap(Self.diagnoses[0].message, width: 70, maxLines: 6)
        #expect(lines.count == 6)
        #expect(lines.allSatisfy { $0.count <= 70 }, "\(lines.map(\.count))")
        #expect(lines[0] == "Sink" && lines[1].hasPrefix("\"" + Self.escaped + Self.escaped))
        #expect(lines[5].hasSuffix(" …"))
    }
}
