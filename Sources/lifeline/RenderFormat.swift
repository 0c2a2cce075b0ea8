import ArgumentParser
import LifelineAnalysis
import LifelineLog
import LifelineRender

/// A picture `lifeline render` can draw from a log, and the file name the gallery gives it.
///
/// The ownership-graph formats (dot, graph-svg, graph-png) are not here yet: they need the
/// ownership snapshots the recorder does not write so far.
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

    /// The name of this format's file in a sample's gallery folder.
    var galleryFileName: String {
        switch self {
        case .svg: return "sequence.svg"
        case .mermaid: return "sequence.mmd"
        case .plantuml: return "sequence.puml"
        case .marbles: return "marbles.svg"
        case .perfetto: return "trace.perfetto.json"
        }
    }

    /// What is being drawn, for the progress indicator.
    var pictureName: String {
        switch self {
        case .svg, .mermaid, .plantuml: return "sequence diagram"
        case .marbles: return "marble diagram"
        case .perfetto: return "Perfetto trace"
        }
    }

    /// Draws `trace` in this format.
    ///
    /// - Parameters:
    ///   - trace: The recorded trace.
    ///   - diagnoses: Findings the sequence diagrams show as notes; the marble diagram and the
    ///     Perfetto trace do not show them.
    ///   - folding: Whether long runs of identical calls are collapsed.
    ///   - axis: What the marble diagram's horizontal axis measures.
    func render(_ trace: Trace, diagnoses: [Diagnosis], folding: Bool, axis: MarbleDiagramOptions.Axis) -> String {
        let sequence = SequenceDiagramOptions(folding: folding)
        switch self {
        case .svg: return SequenceSVGRenderer.render(trace, diagnoses: diagnoses, options: sequence)
        case .mermaid: return MermaidSequenceRenderer.render(trace, diagnoses: diagnoses, options: sequence)
        case .plantuml: return PlantUMLSequenceRenderer.render(trace, diagnoses: diagnoses, options: sequence)
        case .marbles: return MarbleSVGRenderer.render(trace, options: MarbleDiagramOptions(axis: axis, folding: folding))
        case .perfetto: return PerfettoTraceRenderer.render(trace)
        }
    }
}
