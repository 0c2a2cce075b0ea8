import LifelineLog
import Synchronization

/// The ownership graphs the rules last built: the findings of a rule, and of the rules after it,
/// mostly come from or are explained from the same snapshot (the one taken at stop), and share
/// its graph instead of building it again for each. A few graphs are kept, the most recently used
/// first, so a log of thousands of per-call snapshots does not keep them all.
final class RecentOwnershipGraphs: Sendable {
    /// How many graphs are kept.
    static let capacity = 4

    private let graphs = Mutex<[OwnershipGraph]>([])

    /// The graph of `snapshot`, one of `trace`'s.
    func graph(of snapshot: TraceSnapshot, in trace: Trace) -> OwnershipGraph {
        if let kept = graphs.withLock({ graphs in graphs.first { $0.snapshot.index == snapshot.index } }) { return kept }
        let graph = OwnershipGraph(snapshot: snapshot, trace: trace)
        graphs.withLock { graphs in
            graphs.insert(graph, at: 0)
            if graphs.count > Self.capacity { graphs.removeLast() }
        }
        return graph
    }
}
