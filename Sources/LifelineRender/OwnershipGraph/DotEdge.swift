/// A directed edge of a ``DotGraph``.
public struct DotEdge: Hashable, Sendable {
    /// The id of the node the edge starts at.
    public var from: String
    /// The id of the node the edge points to.
    public var to: String
    /// The edge's attributes, written in this order.
    public var attributes: [DotAttribute]

    /// Creates an edge.
    ///
    /// - Parameters:
    ///   - from: The id of the node the edge starts at.
    ///   - to: The id of the node the edge points to.
    ///   - attributes: The edge's attributes.
    public init(from: String, to: String, attributes: [DotAttribute] = []) {
        self.from = from
        self.to = to
        self.attributes = attributes
    }
}
