import Synchronization

extension TraceSnapshot {
    /// A snapshot's nodes and edges: arrays given whole, or the graph a delta left
    /// (``TraceSnapshotGraph``), which gives the arrays the first time they are asked for. A
    /// snapshot given whole makes its graph the first time a delta is applied to it.
    ///
    /// So a reader applies each delta line in time proportional to what it changes, and a log of
    /// many per-call snapshots costs, for every snapshot nobody looks at whole, only its changes.
    final class Content: Sendable {
        struct Arrays: Hashable, Sendable {
            let nodes: [Node]
            let edges: [Edge]
            let lastChecked: [TraceObjectID: UInt64]
        }

        /// The graph a delta left, or `nil` for a snapshot given whole.
        let madeByDelta: TraceSnapshotGraph?
        /// How many nodes the snapshot did not check.
        let uncheckedCount: Int
        private let givenArrays: Arrays?
        private let lazyArrays = Mutex<Arrays?>(nil)
        private let lazyGraph = Mutex<TraceSnapshotGraph??>(nil)

        init(nodes: [Node], edges: [Edge], lastChecked: [TraceObjectID: UInt64]) {
            givenArrays = Arrays(nodes: nodes, edges: edges, lastChecked: lastChecked)
            madeByDelta = nil
            uncheckedCount = lastChecked.count
        }

        init(graph: TraceSnapshotGraph) {
            givenArrays = nil
            madeByDelta = graph
            uncheckedCount = graph.uncheckedCount
        }

        /// The nodes, edges and ``TraceSnapshot/lastChecked``.
        var arrays: Arrays {
            if let givenArrays { return givenArrays }
            return lazyArrays.withLock { arrays in
                if let arrays { return arrays }
                let made = madeByDelta!.materialized()
                let result = Arrays(nodes: made.nodes, edges: made.edges, lastChecked: made.lastChecked)
                arrays = result
                return result
            }
        }

        /// The graph, for a delta to change; `nil` when an edge of the snapshot names an object
        /// that is not one of its nodes.
        func graph(seq: UInt64) -> TraceSnapshotGraph? {
            if let madeByDelta { return madeByDelta }
            return lazyGraph.withLock { graph in
                if let graph { return graph }
                let arrays = arrays
                let made = TraceSnapshotGraph(nodes: arrays.nodes, edges: arrays.edges, lastChecked: arrays.lastChecked, seq: seq)
                graph = .some(made)
                return made
            }
        }
    }
}
