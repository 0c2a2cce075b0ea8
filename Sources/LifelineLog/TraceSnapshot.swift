/// The reference graph between live objects at one moment of a recording.
///
/// A snapshot is taken by heap inspection, on demand (`Lifeline.snapshot("label")`) or
/// automatically after a subscribe, at a completion or cancel, and at stop. Its nodes are the
/// objects it saw, each declared like any other object in ``Trace/objects``; its edges are the
/// references one object stores to another, with the field or closure capture that holds the
/// reference and its ownership.
///
/// A snapshot is not an event: it carries no sequence number of its own. ``seq`` is the last
/// event recorded before it was taken, and ``index`` orders snapshots taken after the same
/// event.
public struct TraceSnapshot: Hashable, Sendable {
    /// The snapshot's number in the log: 1 for the first taken, then 2, 3, ….
    public let index: Int
    /// The sequence number of the last event recorded before the snapshot was taken, or 0
    /// when it was taken before any event.
    public let seq: UInt64
    /// The user's label for a requested snapshot, or a description of the automatic moment
    /// (`after subscribe @12`, after event 12; older logs wrote `#12`).
    public let label: String
    /// Why the snapshot was taken.
    public let reason: Reason
    /// The objects the snapshot saw, ordered by id.
    public var nodes: [Node] { content.arrays.nodes }
    /// The references between them, ordered by source, then field, then target.
    public var edges: [Edge] { content.arrays.edges }
    /// The nodes this snapshot did not check, each with the ``seq`` of the snapshot that last
    /// did: such a node's references, counts and liveness are what that earlier snapshot
    /// found. Empty for a complete snapshot, one that checked every node (requested and stop
    /// snapshots, and the first of a log). A per-call snapshot checks what the call's events
    /// name and what changed with them, and the other objects in turns (docs/LogFormat.md,
    /// "Delta snapshots").
    public var lastChecked: [TraceObjectID: UInt64] { content.arrays.lastChecked }

    /// The nodes and edges, as given or as a delta left them (``TraceSnapshotDelta``).
    let content: Content

    /// Whether the snapshot checked every node: nothing in it is older than ``seq``.
    public var isComplete: Bool { content.uncheckedCount == 0 }

    /// The nodes a per-call snapshot (one a delta made) checked itself: few, where asking
    /// ``checked(_:)`` of every object of a large graph costs a lookup each. `nil` for a
    /// snapshot given whole, which says what it did not check (``lastChecked``).
    public var checkedIDs: Set<TraceObjectID>? {
        content.madeByDelta.map { Set($0.checkedSinceAdvance) }
    }

    /// Whether the snapshot checked `id`'s references, counts and liveness itself, rather
    /// than taking them from an earlier snapshot.
    public func checked(_ id: TraceObjectID) -> Bool {
        if let graph = content.madeByDelta { return graph[id].map { $0.checkedBy == graph.generation } ?? true }
        return lastChecked[id] == nil
    }

    /// Creates a snapshot. `nodes` are sorted by id and `edges` by source, field and target,
    /// so equal graphs compare and encode equal.
    public init(
        index: Int, seq: UInt64, label: String, reason: Reason, nodes: [Node], edges: [Edge],
        lastChecked: [TraceObjectID: UInt64] = [:]
    ) {
        self.init(
            index: index, seq: seq, label: label, reason: reason,
            content: Content(nodes: nodes.sorted { $0.id < $1.id }, edges: edges.sorted(by: TraceSnapshotGraph.precedes), lastChecked: lastChecked)
        )
    }

    init(index: Int, seq: UInt64, label: String, reason: Reason, content: Content) {
        self.index = index
        self.seq = seq
        self.label = label
        self.reason = reason
        self.content = content
    }

    /// The node for `id`, if the snapshot saw that object.
    public func node(_ id: TraceObjectID) -> Node? {
        if let graph = content.madeByDelta { return graph[id]?.node }
        let nodes = self.nodes
        var low = 0, high = nodes.count
        while low < high {
            let middle = (low + high) / 2
            if nodes[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low < nodes.count && nodes[low].id == id ? nodes[low] : nil
    }

    public static func == (lhs: TraceSnapshot, rhs: TraceSnapshot) -> Bool {
        guard lhs.index == rhs.index, lhs.seq == rhs.seq, lhs.label == rhs.label, lhs.reason == rhs.reason else { return false }
        return lhs.content === rhs.content || lhs.content.arrays == rhs.content.arrays
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(index)
        hasher.combine(seq)
        hasher.combine(label)
        hasher.combine(reason)
        hasher.combine(content.arrays)
    }

    /// What made the recorder take a snapshot.
    public enum Reason: String, Hashable, Sendable, CaseIterable {
        /// `Lifeline.snapshot(_:)`.
        case requested
        /// Automatic, after a `subscribe` call returned.
        case subscribe
        /// Automatic, after a `receive(completion:)` call returned.
        case completion
        /// Automatic, after a `cancel()` call returned.
        case cancel
        /// Automatic, when recording stopped.
        case stop
        /// Automatic, right after a hang record (``TraceHang``): what held what while the
        /// program hung. Read in full, as a requested snapshot is.
        case hang
    }
}
