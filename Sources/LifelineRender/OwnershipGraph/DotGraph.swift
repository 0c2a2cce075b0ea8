/// A directed graph in Graphviz's DOT language, built from typed parts.
///
/// Build the graph from ``DotNode``s and ``DotEdge``s, then write it with ``text``. Every string
/// in the graph is escaped on the way out, so any label text is safe; the model has no
/// attribute that takes a URL, so user text never becomes a link.
///
/// ```swift
/// var graph = DotGraph(name: "ownership")
/// graph.nodes = [
///     DotNode(id: "a", attributes: [.label("ViewModel")]),
///     DotNode(id: "b", attributes: [.label("Sink")]),
/// ]
/// graph.edges = [DotEdge(from: "a", to: "b", attributes: [.label("cancellables")])]
/// print(graph.text)
/// ```
///
/// Output order is the order of the arrays, so sort them for deterministic output.
public struct DotGraph: Hashable, Sendable {
    /// The graph's name, written after `digraph`.
    public var name: String
    /// Attributes of the graph itself, such as ``DotAttribute/rankDirection(_:)``.
    public var graphAttributes: [DotAttribute]
    /// Attributes every node gets unless it sets its own.
    public var nodeDefaults: [DotAttribute]
    /// Attributes every edge gets unless it sets its own.
    public var edgeDefaults: [DotAttribute]
    /// The nodes, written in this order.
    public var nodes: [DotNode]
    /// The edges, written in this order.
    public var edges: [DotEdge]

    /// Creates a graph.
    ///
    /// - Parameters:
    ///   - name: The graph's name.
    ///   - graphAttributes: Attributes of the graph itself.
    ///   - nodeDefaults: Attributes every node gets unless it sets its own.
    ///   - edgeDefaults: Attributes every edge gets unless it sets its own.
    ///   - nodes: The nodes, in output order.
    ///   - edges: The edges, in output order.
    public init(
        name: String,
        graphAttributes: [DotAttribute] = [],
        nodeDefaults: [DotAttribute] = [],
        edgeDefaults: [DotAttribute] = [],
        nodes: [DotNode] = [],
        edges: [DotEdge] = []
    ) {
        self.name = name
        self.graphAttributes = graphAttributes
        self.nodeDefaults = nodeDefaults
        self.edgeDefaults = edgeDefaults
        self.nodes = nodes
        self.edges = edges
    }

    /// The graph as DOT text, one statement per line, ending in a newline.
    ///
    /// Every node gets an explicit label (its id when it has none), because Graphviz would
    /// otherwise interpret escape sequences such as `\N` in the raw id.
    public var text: String {
        var lines = ["digraph \(DotQuotedString(name)) {"]
        if !graphAttributes.isEmpty {
            lines.append("  graph \(DotAttribute.list(graphAttributes));")
        }
        if !nodeDefaults.isEmpty {
            lines.append("  node \(DotAttribute.list(nodeDefaults));")
        }
        if !edgeDefaults.isEmpty {
            lines.append("  edge \(DotAttribute.list(edgeDefaults));")
        }
        for node in nodes {
            lines.append("  \(DotQuotedString(node.id)) \(DotAttribute.list(node.labelledAttributes));")
        }
        for edge in edges {
            let statement = "  \(DotQuotedString(edge.from)) -> \(DotQuotedString(edge.to))"
            lines.append(edge.attributes.isEmpty
                ? statement + ";"
                : statement + " \(DotAttribute.list(edge.attributes));")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }
}
