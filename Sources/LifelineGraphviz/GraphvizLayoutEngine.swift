/// A Graphviz layout engine.
public enum GraphvizLayoutEngine: String, Hashable, Sendable, CaseIterable {
    /// Layered layout for directed graphs; the clearest for small graphs, but its time grows
    /// steeply with size.
    case dot
    /// Multiscale force-directed layout; fast on graphs of thousands of nodes.
    case sfdp
    /// Spring-model layout.
    case neato
    /// Force-directed layout.
    case fdp
    /// Circular layout.
    case circo
    /// Radial layout.
    case twopi

    /// Above this many nodes, ``forNodeCount(_:)`` picks ``sfdp`` instead of ``dot``.
    public static let sfdpNodeThreshold = 1_000

    /// The engine for a graph of this many nodes: ``dot`` up to ``sfdpNodeThreshold`` nodes,
    /// ``sfdp`` above.
    ///
    /// - Parameter nodeCount: The number of nodes in the graph.
    public static func forNodeCount(_ nodeCount: Int) -> GraphvizLayoutEngine {
        nodeCount > sfdpNodeThreshold ? .sfdp : .dot
    }
}
