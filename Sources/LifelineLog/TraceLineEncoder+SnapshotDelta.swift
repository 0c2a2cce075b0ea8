extension TraceLineEncoder {
    /// Hands `body` the encoded line for a per-call snapshot written as what changed since the
    /// snapshot before it (docs/LogFormat.md, "Delta snapshots"). Its new nodes must be declared
    /// by object lines of their own.
    public static func withLine<Result>(
        for delta: TraceSnapshotDelta, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        let capacity = 200 + TraceLineBuilder.capacity(forString: delta.label)
            + capacity(forNodes: delta.nodes, edges: delta.edges + delta.removedEdges) + 24 * (delta.removedNodes.count + delta.checked.count)
        return try withLine(capacity: capacity, build: { line in
            encodeSnapshotHeader(index: delta.index, seq: delta.seq, label: delta.label, reason: delta.reason, into: &line)
            line.raw(",\"base\":")
            line.number(delta.base)
            line.raw(",\"nodes\":[")
            encode(delta.nodes, into: &line)
            line.raw("],\"edges\":[")
            encode(delta.edges, into: &line)
            line.raw("],\"removed_nodes\":[")
            encodeIDs(delta.removedNodes, into: &line)
            line.raw("],\"removed_edges\":[")
            encode(delta.removedEdges, into: &line)
            line.raw("]")
            if !delta.checked.isEmpty {
                line.raw(",\"checked\":[")
                encodeIDs(delta.checked, into: &line)
                line.raw("]")
            }
            line.raw("}\n")
        }, body)
    }

    /// Writes `ids` as the members of a JSON array of `{"id":N}` objects.
    private static func encodeIDs(_ ids: [TraceObjectID], into line: inout TraceLineBuilder) {
        for (position, id) in ids.enumerated() {
            line.raw(position == 0 ? "{\"id\":" : ",{\"id\":")
            line.number(id.rawValue)
            line.raw("}")
        }
    }
}
