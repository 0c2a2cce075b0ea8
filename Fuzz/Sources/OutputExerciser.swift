import Foundation
import LifelineAnalysis
import LifelineLog
import LifelineRender

/// Reads one input as every `lifeline` command does and produces every output from it: the
/// timeline, both diagnosis reports (with and without a scope), every diagram, the Perfetto
/// trace, for each snapshot its DOT graph and `lifeline why` for each of its objects, and
/// `lifeline export`'s JSON Lines, which must read back to the same events.
///
/// A rejected input is a fine outcome; a trap is the finding.
enum OutputExerciser {
    /// What became of one input.
    enum Outcome {
        /// The reader refused it with an error.
        case rejected
        /// The reader accepted it and every output was produced, with this many bytes in all.
        case rendered(bytes: Int)
    }

    static func run(_ input: [UInt8]) -> Outcome {
        guard let trace = try? TraceReader.read(Data(input)) else { return .rejected }
        var bytes = 0
        func produced(_ text: String) { bytes += text.utf8.count }

        // What the reader accepts, export writes, and the JSON Lines hold the same events, with
        // none of the torn lines and unwritten bytes the reader skipped.
        guard let exported = try? TraceExporter.jsonLines(of: Data(input)),
              let reread = try? TraceReader.read(exported), reread.events == trace.events else {
            fatalError("lifeline export of an accepted log does not read back to its events")
        }
        if reread.damage.contains(where: { if case .unwrittenGap = $0 { true } else { false } }) || exported.contains(0) {
            fatalError("lifeline export copied the unwritten bytes of a torn line")
        }
        bytes += exported.count

        var rules = TraceAnalyzer.standardRules
        let marks = trace.events.compactMap { event -> String? in
            if case .mark(let label) = event.kind { return label }
            return nil
        }
        if marks.count >= 2, let scope = ObservedScope(trace: trace, beginMark: marks[0], endMark: marks[marks.count - 1]) {
            rules.append(LeakedSubscriptionRule(scope: scope))
        }
        let diagnoses = TraceAnalyzer(rules: rules).diagnose(trace)
        produced(TimelineRenderer(showsTimes: true).render(trace))
        produced(TimelineRenderer(showsTimes: false).render(trace))
        produced(TextDiagnosisReport(trace: trace, diagnoses: diagnoses).render())
        produced(JSONDiagnosisReport(trace: trace, diagnoses: diagnoses).render())
        for folding in [true, false] {
            let options = SequenceDiagramOptions(folding: folding)
            produced(SequenceSVGRenderer.render(trace, diagnoses: diagnoses, options: options))
            produced(MermaidSequenceRenderer.render(trace, diagnoses: diagnoses, options: options))
            produced(PlantUMLSequenceRenderer.render(trace, diagnoses: diagnoses, options: options))
        }
        for axis in MarbleDiagramOptions.Axis.allCases {
            produced(MarbleSVGRenderer.render(trace, options: MarbleDiagramOptions(axis: axis)))
        }
        produced(PerfettoTraceRenderer.render(trace))
        for snapshot in trace.snapshots {
            produced(OwnershipDOTRenderer.render(snapshot, in: trace))
            let graph = OwnershipGraph(snapshot: snapshot, trace: trace)
            for node in snapshot.nodes {
                let subject = trace.object(node.id)?.displayName ?? "object \(node.id)"
                produced(graph.sentence(explaining: graph.whyAlive(node.id), subject: subject))
                produced(graph.countSentence(of: node.id, subject: subject) ?? "")
            }
        }
        _ = trace.fullestSnapshot
        return .rendered(bytes: bytes)
    }
}
