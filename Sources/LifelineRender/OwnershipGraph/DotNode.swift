/// A node of a ``DotGraph``.
public struct DotNode: Hashable, Sendable {
    /// The node's identity in the graph; edges refer to it. Give each node a distinct id made
    /// of printable characters: control characters are dropped when the graph is written.
    public var id: String
    /// The node's attributes, written in this order.
    public var attributes: [DotAttribute]

    /// Creates a node.
    ///
    /// - Parameters:
    ///   - id: The node's identity in the graph.
    ///   - attributes: The node's attributes; without a ``DotAttribute/label(_:)`` the node is
    ///     labelled with its id.
    public init(id: String, attributes: [DotAttribute] = []) {
        self.id = id
        self.attributes = attributes
    }

    /// The attributes to write: the node's own, with its id as label when it has no label.
    var labelledAttributes: [DotAttribute] {
        let hasLabel = attributes.contains { attribute in
            if case .label = attribute { return true }
            return false
        }
        return hasLabel ? attributes : [.label(id)] + attributes
    }
}
