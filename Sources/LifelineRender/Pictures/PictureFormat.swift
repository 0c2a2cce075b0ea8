import LifelineAnalysis
import LifelineLog

/// A picture Lifeline draws from a log (what `lifeline render --format` names), and the file
/// name the gallery gives it.
public enum PictureFormat: String, CaseIterable, Sendable {
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
    public var drawsOwnershipGraph: Bool {
        self == .dot || self == .graphSVG || self == .graphPNG
    }

    /// Whether `--theme` chooses the format's colours: the SVG and PNG pictures.
    public var hasTheme: Bool {
        self == .svg || self == .marbles || self == .graphSVG || self == .graphPNG
    }

    /// The name of this format's file in a sample's gallery folder.
    public var galleryFileName: String {
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

    /// The extension of a file in this format: `svg`, `mmd`, `puml`, `json`, `dot`, `png`.
    public var fileExtension: String {
        String(galleryFileName.split(separator: ".").last!)
    }

    /// What is being drawn, for the progress indicator.
    public var pictureName: String {
        switch self {
        case .svg, .mermaid, .plantuml: return "sequence diagram"
        case .marbles: return "marble diagram"
        case .perfetto: return "Perfetto trace"
        case .dot, .graphSVG, .graphPNG: return "ownership graph"
        }
    }

    /// Whether the picture shows findings as notes: the sequence diagrams.
    public var showsFindings: Bool {
        self == .svg || self == .mermaid || self == .plantuml
    }

    /// A log without ownership snapshots has no ownership graph to draw.
    public struct NoSnapshot: Error, CustomStringConvertible {
        public var description: String { "the log has no ownership snapshot" }
    }

    /// The layout gave no bytes for a picture: no file is better than an empty one.
    public struct EmptyPicture: Error, CustomStringConvertible {
        let format: PictureFormat
        public var description: String { "Graphviz produced an empty \(format.rawValue) picture" }
    }

    /// Draws `trace` in this format, as the bytes of the file.
    ///
    /// - Parameters:
    ///   - trace: The recorded trace.
    ///   - snapshot: The snapshot the ownership-graph formats draw, or `nil` for the trace's
    ///     last; the other formats ignore it.
    ///   - diagnoses: Findings the sequence diagrams show as notes; the marble diagram and the
    ///     Perfetto trace do not show them.
    ///   - folding: Whether long runs of identical calls are collapsed.
    ///   - axis: What the marble diagram's horizontal axis measures.
    ///   - theme: The colours of the SVG and PNG pictures; the text formats ignore it.
    ///   - collapse: Whether the sequence diagrams fold each pipeline's operators into one lane.
    ///   - findingNumbers: The number each finding's note carries (the whole log's).
    ///   - layout: What lays out `graph-svg` and `graph-png` (LifelineGraphviz's
    ///     `GraphvizLayout`); the other formats ignore it.
    ///   - lifecycles: The lifecycles of `trace`, when the caller has them already (it
    ///     diagnosed the trace): they are not rebuilt.
    /// - Throws: ``NoSnapshot`` when an ownership graph is asked of a log without snapshots,
    ///   the layout's error when it fails to lay the graph out, ``EmptyPicture`` when it
    ///   renders no bytes.
    public func render(
        _ trace: Trace, snapshot: TraceSnapshot? = nil, diagnoses: [Diagnosis], folding: Bool, axis: MarbleDiagramOptions.Axis,
        theme: PictureTheme = .auto, collapse: SequenceDiagramOptions.Collapse = .auto, findingNumbers: [Diagnosis: Int] = [:],
        layout: any OwnershipGraphLayout, lifecycles: TraceLifecycles? = nil
    ) throws -> [UInt8] {
        var sequence = SequenceDiagramOptions(folding: folding, collapse: collapse, appearance: theme.svgAppearance)
        sequence.findingNumbers = findingNumbers
        switch self {
        case .svg: return Array(SequenceSVGRenderer.render(trace, diagnoses: diagnoses, options: sequence, lifecycles: lifecycles).utf8)
        case .mermaid: return Array(MermaidSequenceRenderer.render(trace, diagnoses: diagnoses, options: sequence, lifecycles: lifecycles).utf8)
        case .plantuml: return Array(PlantUMLSequenceRenderer.render(trace, diagnoses: diagnoses, options: sequence, lifecycles: lifecycles).utf8)
        case .marbles:
            let options = MarbleDiagramOptions(axis: axis, folding: folding, appearance: theme.svgAppearance)
            return Array(MarbleSVGRenderer.render(trace, options: options, lifecycles: lifecycles).utf8)
        case .perfetto: return PerfettoTraceRenderer.renderUTF8(trace)
        case .dot, .graphSVG, .graphPNG:
            guard let snapshot = snapshot ?? trace.snapshots.last else { throw NoSnapshot() }
            let graph = OwnershipDOTRenderer.graph(snapshot, in: trace, lifecycles: lifecycles)
            guard self != .dot else { return Array(graph.text.utf8) }
            let (dot, svg) = try Self.laidOutToFit(graph, layout: layout, theme: theme)
            let picture = self == .graphSVG ? Array(svg.utf8) : try layout.png(fromDOT: dot, theme: theme)
            guard !picture.isEmpty else { throw EmptyPicture(format: self) }
            return picture
        }
    }

    /// The most an ownership graph is scaled down to fit a page: its 10 pt edge labels stay
    /// at least 11 px.
    static let smallestGraphScale = 0.825

    /// `graph` laid out as SVG, and the DOT it was laid out from: left to right, which reads a
    /// chain of owners best, unless that is wider than a page; then the narrowest of that, of
    /// top to bottom, and of top to bottom with its unconnected parts one below the other,
    /// scaled down to the page when its text stays readable (``smallestGraphScale``).
    private static func laidOutToFit(
        _ graph: DotGraph, layout: any OwnershipGraphLayout, theme: PictureTheme
    ) throws -> (dot: String, svg: String) {
        let page = PageFit.pageWidth
        func width(_ svg: String) -> Int? { PageFit.svgSize(Array(svg.utf8))?.0 }
        let wide = graph.text
        let wideSVG = try layout.svg(fromDOT: wide, theme: theme)
        guard let wideWidth = width(wideSVG), wideWidth > page else { return (wide, wideSVG) }
        var best = (graph: graph, dot: wide, svg: wideSVG, width: wideWidth)
        var topToBottom = graph
        topToBottom.graphAttributes = graph.graphAttributes.map { attribute in
            if case .rankDirection = attribute { return .rankDirection(.topToBottom) }
            return attribute
        }
        // Left to right, dot already puts unconnected parts one below the other.
        let stacked = topToBottom.stackingUnconnectedParts
        for other in stacked == topToBottom ? [topToBottom] : [topToBottom, stacked] where other != graph {
            let dot = other.text
            let svg = try layout.svg(fromDOT: dot, theme: theme)
            if let otherWidth = width(svg), otherWidth < best.width { best = (other, dot, svg, otherWidth) }
        }
        if best.width > page, Double(page) >= Double(best.width) * smallestGraphScale {
            var scaled = best.graph
            // Graphviz takes the largest size in inches: 72 pt, 96 px each.
            scaled.graphAttributes.append(.size(width: Double(page) / 96, height: 1_000))
            let dot = scaled.text
            return (dot, try layout.svg(fromDOT: dot, theme: theme))
        }
        return (best.dot, best.svg)
    }
}
