extension TraceSnapshot {
    /// How many nodes the snapshot holds, without making its arrays.
    package var nodeCount: Int {
        content.madeByDelta?.count ?? nodes.count
    }

    /// How many edges the snapshot holds, without making its arrays.
    package var edgeCount: Int {
        content.madeByDelta?.edgeCount ?? edges.count
    }

    /// The edges from `id`, ordered as ``edges`` orders them, without making the snapshot's
    /// arrays.
    package func edges(from id: TraceObjectID) -> [Edge] {
        if let graph = content.graph(seq: seq) { return graph[id]?.outgoing ?? [] }
        return edges.filter { $0.from == id }
    }

    /// The nodes with an edge to `id`, ordered by id, without making the snapshot's arrays.
    package func holders(of id: TraceObjectID) -> [TraceObjectID] {
        if let graph = content.graph(seq: seq) { return (graph[id]?.incoming.keys).map { $0.sorted() } ?? [] }
        return Array(Set(edges.filter { $0.to == id }.map(\.from))).sorted()
    }

    /// The ids of the nodes that differ between this snapshot and `earlier`: nodes only one
    /// of them has, and nodes whose kind, name, counts, liveness or edges differ. Ordered by id.
    ///
    /// A snapshot a delta made shares all it did not change with the snapshot before it, so
    /// for consecutive snapshots of a per-call log this costs what the delta changed, not what
    /// lives.
    package func changedNodes(since earlier: TraceSnapshot) -> [TraceObjectID] {
        if let later = content.graph(seq: seq), let before = earlier.content.graph(seq: earlier.seq) {
            return later.changedIDs(since: before)
        }
        let old = Dictionary(earlier.nodes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let new = Dictionary(nodes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let oldEdges = Dictionary(grouping: earlier.edges, by: \.from), newEdges = Dictionary(grouping: edges, by: \.from)
        return Set(old.keys).union(new.keys).filter { id in
            old[id] != new[id] || oldEdges[id, default: []] != newEdges[id, default: []]
        }.sorted()
    }
}
