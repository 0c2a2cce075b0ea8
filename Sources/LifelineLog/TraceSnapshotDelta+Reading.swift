extension TraceSnapshotDelta {
    /// The full snapshot a delta snapshot line stands for: `changes` (the line's `nodes` and
    /// `edges`, read as a snapshot's) with its removals, applied to `previous`, the snapshot
    /// line before it.
    static func reconstruct(
        _ fields: LineFields, changes: TraceSnapshot, after previous: TraceSnapshot?
    ) throws(TraceReadError) -> TraceSnapshot {
        var removedNodes: [TraceObjectID] = []
        for node in try fields.objects("removed_nodes") {
            removedNodes.append(try node.id("id"))
        }
        var removedEdges: [TraceSnapshot.Edge] = []
        for edge in try fields.objects("removed_edges") {
            removedEdges.append(try TraceSnapshot.Edge.read(edge))
        }
        var checked: [TraceObjectID] = []
        if fields.has("checked") {
            for node in try fields.objects("checked") {
                checked.append(try node.id("id"))
            }
        }
        let delta = TraceSnapshotDelta(
            index: changes.index, seq: changes.seq, label: changes.label, reason: changes.reason,
            base: try fields.integer("base"), nodes: changes.nodes, removedNodes: removedNodes, edges: changes.edges,
            removedEdges: removedEdges, checked: checked
        )
        do {
            return try delta.applied(to: previous)
        } catch {
            throw .badField(line: fields.number, field: "base", reason: error.description)
        }
    }
}
