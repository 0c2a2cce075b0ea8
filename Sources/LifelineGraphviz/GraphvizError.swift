/// Why Graphviz could not render a graph.
///
/// The messages are Graphviz's own, captured instead of printed to standard error.
public enum GraphvizError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The DOT text could not be parsed.
    case invalidDOT(message: String)
    /// The layout engine failed on the graph.
    case layoutFailed(engine: GraphvizLayoutEngine, message: String)
    /// The laid-out graph could not be rendered to the format.
    case renderFailed(format: String, message: String)
    /// Graphviz produced an SVG that is not valid UTF-8 or not well-formed XML.
    case malformedSVG(reason: String)
    /// Graphviz could not start, for example because its plugins are not installed.
    case unavailable(message: String)

    public var description: String {
        switch self {
        case .invalidDOT(let message):
            "The DOT text is not valid: \(message)"
        case .layoutFailed(let engine, let message):
            "Graphviz's \(engine.rawValue) layout failed: \(message)"
        case .renderFailed(let format, let message):
            "Graphviz could not render \(format): \(message)"
        case .malformedSVG(let reason):
            "Graphviz produced an invalid SVG: \(reason)"
        case .unavailable(let message):
            "Graphviz is not available: \(message)"
        }
    }
}
