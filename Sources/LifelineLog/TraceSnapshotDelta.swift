/// What changed in the reference graph since the snapshot before: how a per-call snapshot is
/// written (a snapshot line with a `base`, log format version 4; with `checked`, version 5).
///
/// Applying the delta to the snapshot it names as its base gives the full snapshot, the one a
/// reader hands on (``TraceSnapshot``); nothing after reading sees deltas.
///
/// ```swift
/// let delta = TraceSnapshotDelta(from: previous, to: current)
/// assert(try delta.applied(to: previous) == current)
/// ```
public struct TraceSnapshotDelta: Hashable, Sendable {
    /// Why a delta cannot be applied to a snapshot.
    public enum Mismatch: Error, Hashable, Sendable, CustomStringConvertible {
        /// The snapshot is not the one the delta was taken against.
        case wrongBase(expected: Int, found: Int?)
        /// The delta removes a node or an edge the base does not have.
        case missing(String)
        /// An edge of the result names an object that is not one of its nodes.
        case danglingEdge(TraceObjectID)
        /// The delta says it checked an object that is not one of the result's nodes.
        case checkedNonNode(TraceObjectID)

        public var description: String {
            switch self {
            case .wrongBase(let expected, let found?):
                return "names snapshot \(expected) as its base, but the snapshot line before it is snapshot \(found)"
            case .wrongBase(let expected, nil):
                return "names snapshot \(expected) as its base, but no snapshot line comes before it"
            case .missing(let what):
                return "removes \(what), which its base snapshot does not have"
            case .danglingEdge(let id):
                return "leaves an edge to object \(id.rawValue), which is not a node of the snapshot"
            case .checkedNonNode(let id):
                return "says it checked object \(id.rawValue), which is not a node of the snapshot"
            }
        }
    }

    /// The snapshot's number in the log, as ``TraceSnapshot/index``.
    public let index: Int
    /// As ``TraceSnapshot/seq``.
    public let seq: UInt64
    /// As ``TraceSnapshot/label``.
    public let label: String
    /// As ``TraceSnapshot/reason``.
    public let reason: TraceSnapshot.Reason
    /// The number of the snapshot this one changes: the snapshot before it in the log.
    public let base: Int
    /// The nodes that are new or differ from the base's (counts, kind, name, liveness), whole,
    /// ordered by id.
    public let nodes: [TraceSnapshot.Node]
    /// The base's nodes that are gone, ordered. Their edges go with them.
    public let removedNodes: [TraceObjectID]
    /// The edges that are new, in ``TraceSnapshot/edges`` order.
    public let edges: [TraceSnapshot.Edge]
    /// The base's edges that are gone while both their ends stay, in the same order.
    public let removedEdges: [TraceSnapshot.Edge]
    /// The nodes, besides those of ``nodes``, that this snapshot checked and found as they
    /// were, ordered. Every other node of the result keeps the moment it was last checked
    /// (``TraceSnapshot/lastChecked``): the base's, or the base itself when the base checked it.
    public let checked: [TraceObjectID]

    /// Creates a delta from its parts, as a reader finds them in a line.
    public init(
        index: Int, seq: UInt64, label: String, reason: TraceSnapshot.Reason, base: Int, nodes: [TraceSnapshot.Node],
        removedNodes: [TraceObjectID], edges: [TraceSnapshot.Edge], removedEdges: [TraceSnapshot.Edge],
        checked: [TraceObjectID] = []
    ) {
        self.index = index
        self.seq = seq
        self.label = label
        self.reason = reason
        self.base = base
        self.nodes = nodes
        self.removedNodes = removedNodes
        self.edges = edges
        self.removedEdges = removedEdges
        self.checked = checked
    }

    /// The delta that turns `base` into `snapshot`.
    public init(from base: TraceSnapshot, to snapshot: TraceSnapshot) {
        var before = Dictionary(base.nodes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var changed: [TraceSnapshot.Node] = []
        for node in snapshot.nodes {
            if before.removeValue(forKey: node.id) != node { changed.append(node) }
        }
        let removedNodes = before.keys.sorted()
        let gone = Set(removedNodes)
        let oldEdges = Set(base.edges), newEdges = Set(snapshot.edges)
        let changedIDs = Set(changed.map(\.id))
        self.init(
            index: snapshot.index, seq: snapshot.seq, label: snapshot.label, reason: snapshot.reason, base: base.index,
            nodes: changed, removedNodes: removedNodes,
            edges: snapshot.edges.filter { !oldEdges.contains($0) },
            removedEdges: base.edges.filter { !newEdges.contains($0) && !gone.contains($0.from) && !gone.contains($0.to) },
            checked: snapshot.nodes.map(\.id).filter { snapshot.checked($0) && !changedIDs.contains($0) }
        )
    }

    /// The full snapshot: `base` with this delta's changes.
    ///
    /// It takes time in proportion to what the delta changes, not to the size of the snapshot:
    /// the result shares what did not change with `base` (``TraceSnapshotGraph``).
    ///
    /// - Throws: ``Mismatch`` when `base` is not the snapshot the delta names, or the delta
    ///   does not fit it (a damaged or hand-edited log).
    public func applied(to base: TraceSnapshot?) throws(Mismatch) -> TraceSnapshot {
        guard let base, base.index == self.base else { throw .wrongBase(expected: self.base, found: base?.index) }
        guard var graph = base.content.graph(seq: base.seq) else {
            throw .danglingEdge(base.edges.first { base.node($0.from) == nil || base.node($0.to) == nil }.map { base.node($0.from) == nil ? $0.from : $0.to } ?? TraceObjectID(0))
        }
        graph.advance()
        for id in removedNodes {
            guard graph.removeNode(id) else { throw .missing("object \(id.rawValue)") }
        }
        for node in nodes { _ = graph.check(node.id, at: seq, node: node) }
        for edge in removedEdges {
            guard graph.remove(edge) else {
                throw .missing("the edge \(edge.from.rawValue) → \(edge.to.rawValue) (\(edge.field))")
            }
        }
        for edge in edges {
            for id in [edge.from, edge.to] where graph[id] == nil { throw .danglingEdge(id) }
            graph.insert(edge)
        }
        for id in checked {
            guard graph.check(id, at: seq) else { throw .checkedNonNode(id) }
        }
        return TraceSnapshot(index: index, seq: seq, label: label, reason: reason, content: .init(graph: graph))
    }
}
