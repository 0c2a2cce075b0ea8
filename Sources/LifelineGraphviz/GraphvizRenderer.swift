/// Lays out and renders DOT text in-process through libgraphviz.
///
/// Graphviz is not thread-safe, so every render in the process runs one at a time; calling
/// from many threads is safe, and the calls wait their turn. Graphviz's messages never reach
/// standard error: a failure throws a ``GraphvizError`` that carries them.
///
/// ```swift
/// let renderer = GraphvizRenderer()
/// let svg = try renderer.svg(fromDOT: graph.text)
/// let png = try renderer.png(fromDOT: graph.text)
/// ```
///
/// Output is deterministic: the same DOT text gives the same bytes on the same machine. (Text
/// widths come from the fonts installed, so other machines may lay out differently.)
public struct GraphvizRenderer: Hashable, Sendable {
    /// The layout engine, or nil to choose by size with
    /// ``GraphvizLayoutEngine/forNodeCount(_:)``. A `layout` attribute in the DOT text wins
    /// over both.
    public var engine: GraphvizLayoutEngine?
    /// The colours and background of the output: adaptive (the default) follows the viewer's
    /// light or dark mode in an SVG and is light in a PNG; light and dark bake one palette in.
    public var appearance: GraphvizAppearance

    /// Creates a renderer.
    ///
    /// - Parameters:
    ///   - engine: The layout engine, or nil (the default) to choose by the graph's size.
    ///   - appearance: The colours and background of the output; adaptive by default.
    public init(engine: GraphvizLayoutEngine? = nil, appearance: GraphvizAppearance = .adaptive) {
        self.engine = engine
        self.appearance = appearance
    }

    /// Renders DOT text as an SVG document.
    ///
    /// The SVG has no Graphviz version comment, is checked to be valid UTF-8 and well-formed
    /// XML. When adaptive, it has a transparent background and a dark-mode style sheet; when
    /// light or dark, an opaque background and that palette's colours, with no style sheet.
    ///
    /// - Parameter dot: The graph in the DOT language.
    /// - Returns: The SVG text.
    /// - Throws: ``GraphvizError`` when the DOT text is invalid or Graphviz fails.
    public func svg(fromDOT dot: String) throws(GraphvizError) -> String {
        let bytes = try GraphvizLibrary.render(
            dot: dot,
            engine: engine,
            format: .svg,
            appearance: appearance
        )
        return try GraphvizSVGDocument.finish(bytes, appearance: appearance)
    }

    /// Renders DOT text as a PNG image, at Graphviz's default 96 dpi: in the light palette on
    /// white when adaptive or light, in the dark palette on near-black when dark, and on the
    /// background the DOT text sets (white by default) when as authored.
    ///
    /// Unless the DOT text sets its own `size`, a drawing larger than 100 × 100 inches
    /// (9,600 pixels at 96 dpi) is scaled down to fit.
    ///
    /// - Parameter dot: The graph in the DOT language.
    /// - Returns: The PNG file's bytes.
    /// - Throws: ``GraphvizError`` when the DOT text is invalid or Graphviz fails.
    public func png(fromDOT dot: String) throws(GraphvizError) -> [UInt8] {
        try GraphvizLibrary.render(dot: dot, engine: engine, format: .png, appearance: appearance)
    }
}
