import ArgumentParser
import LifelineAnalysis
import LifelineGraphviz
import LifelineLog
import LifelineOwnershipDOT
import LifelineRender

/// A picture `lifeline render` can draw from a log, and the file name the gallery gives it.
enum RenderFormat: String, CaseIterable, ExpressibleByArgument {
    /// The sequence diagram as SVG, with diagnoses as notes.
    case svg
    /// The sequence diagram as Mermaid source, with diagnoses as notes.
    case mermaid
    /// The sequence diagram as PlantUML source, with diagnoses as notes.
    case plantuml
    /// The marble diagram as SVG.
    case marbles
    /// Chrome / Perfetto trace JSON.
    case perfetto
    /// The ownership graph of one snapshot as Graphviz DOT source.
    case dot
    /// The ownership graph of one snapshot laid out by Graphviz, as SVG.
    case graphSVG = "graph-svg"
    /// The ownership graph of one snapshot laid out by Graphviz, as PNG (binary: needs a file).
    case graphPNG = "graph-png"

    /// Whether the format draws an ownership snapshot rather than the events.
    var drawsOwnershipGraph: Bool {
        self == .dot || self == .graphSVG || self == .graphPNG
    }

    /// The name of this format's file in a sample's gallery folder.
    var galleryFileName: String {
        switch self {
        case .svg: return "sequence.svg"
        case .mermaid: return "sequence.mmd"
        case .plantuml: return "sequence.puml"
        case .marbles: return "marbles.svg"
        case .perfetto: return "trace.perfetto.json"
        case .dot: return "graph.dot"
        case .graphSVG: return "graph.svg"
        case .graphPNG: return "graph.png"
        }
    }

    /// What is being drawn, for the progress indicator.
    var pictureName: String {
        switch self {
        case .svg, .mermaid, .plantuml: return "sequence diagram"
        case .marbles: return "marble diagram"
        case .perfetto: return "Perfetto trace"
        case .dot, .graphSVG, .graphPNG: return "ownership graph"
        }
    }

    /// Draws `trace` in this format, as the bytes of the file.
    ///
    /// - Parameters:
    ///   - trace: The recorded trace.
    ///   - snapshot: The snapshot the ownership-graph formats draw; the others ignore it.
    ///   - diagnoses: Findings the sequence diagrams show as notes; the marble diagram and the
    ///     Perfetto trace do not show them.
    ///   - folding: Whether long runs of identical calls are collapsed.
    ///   - axis: What the marble diagram's horizontal axis measures.
    /// - Throws: ``GraphvizError`` when Graphviz fails to lay out the ownership graph.
    func render(
        _ trace: Trace, snapshot: TraceSnapshot?, diagnoses: [Diagnosis], folding: Bool, axis: MarbleDiagramOptions.Axis
    ) throws(GraphvizError) -> [UInt8] {
        if let snapshot {
            switch self {
            case .dot: return Array(OwnershipDOTRenderer.render(snapshot, in: trace).utf8)
            case .graphSVG: return Array(try GraphvizRenderer().svg(fromDOT: OwnershipDOTRenderer.render(snapshot, in: trace)).utf8)
            case .graphPNG: return try GraphvizRenderer().png(fromDOT: OwnershipDOTRenderer.render(snapshot, in: trace))
            default: break
            }
        }
        return Array(render(trace, diagnoses: diagnoses, folding: folding, axis: axis).utf8)
    }

    /// Draws `trace` as text in one of the formats that draw events; the ownership-graph
    /// formats draw nothing without a snapshot.
    func render(_ trace: Trace, diagnoses: [Diagnosis], folding: Bool, axis: MarbleDiagramOptions.Axis) -> String {
        let sequence = SequenceDiagramOptions(folding: folding)
        switch self {
        case .svg: return SequenceSVGRenderer.render(trace, diagnoses: diagnoses, options: sequence)
        case .mermaid: return MermaidSequenceRenderer.render(trace, diagnoses: diagnoses, options: sequence)
        case .plantuml: return PlantUMLSequenceRenderer.render(trace, diagnoses: diagnoses, options: sequence)
        case .marbles: return MarbleSVGRenderer.render(trace, options: MarbleDiagramOptions(axis: axis, folding: folding))
        case .perfetto: return PerfettoTraceRenderer.render(trace)
        case .dot, .graphSVG, .graphPNG: return ""
        }
    }
}
