import LifelineLog
import Testing
@testable import LifelineAnalysis

/// ``OwnershipGraph/whyAlive(_:)`` answers every object from one breadth-first search of the
/// whole graph, found once: on random graphs (loops held from outside or not, roots held by
/// other objects or not, dead objects, weak references), every answer is exactly what a
/// search for that one object, written out from the definition below, gives.
@Suite struct WhyAliveTests {
    typealias Edge = TraceSnapshot.Edge
    typealias Node = TraceSnapshot.Node

    /// What keeps `id` alive, searched for it alone: a loop nothing outside holds whose chain
    /// runs through it; else the first origin (roots, a root held by something excepted when
    /// it is `id`; objects nothing holds; the chains of loops nothing outside holds) that a
    /// breadth-first search along strong references between live objects reaches it from.
    private func searchedAlone(_ id: TraceObjectID, in graph: OwnershipGraph) -> AliveExplanation {
        let snapshot = graph.snapshot
        guard let target = snapshot.node(id) else { return .unknown }
        guard target.alive else { return .deallocated }
        let live = { (object: TraceObjectID) in snapshot.node(object)?.alive == true }
        let strong = snapshot.edges.filter { $0.ownership.isStrong && live($0.from) && live($0.to) }
            .sorted { ($0.from, $0.field, $0.to) < ($1.from, $1.field, $1.to) }
        let free = graph.strongCycles.filter { cycle in
            !strong.contains { !cycle.objects.contains($0.from) && cycle.objects.contains($0.to) }
        }
        if let cycle = free.first(where: { $0.chainObjects.contains(id) }) { return .heldByCycle(cycle, path: []) }
        let held = Set(strong.map(\.to))
        let origins = snapshot.nodes.filter { $0.alive && $0.kind == .root && ($0.id != id || !held.contains(id)) }.map(\.id)
            + snapshot.nodes.filter { $0.alive && $0.kind != .root && !held.contains($0.id) }.map(\.id)
            + free.flatMap(\.chainObjects).filter { snapshot.node($0)?.kind != .root }
        var parent: [TraceObjectID: Edge] = [:]
        var visited = Set(origins)
        var queue = origins
        var position = 0
        while position < queue.count, queue[position] != id {
            for edge in strong where edge.from == queue[position] && visited.insert(edge.to).inserted {
                parent[edge.to] = edge
                queue.append(edge.to)
            }
            position += 1
        }
        var path: [Edge] = []
        var current = id
        while let edge = parent[current] {
            path.insert(edge, at: 0)
            current = edge.from
        }
        if snapshot.node(current)?.kind == .root { return .heldByRoot(current, path: path) }
        if let cycle = free.first(where: { $0.chainObjects.contains(current) }) { return .heldByCycle(cycle, path: path) }
        return .unheld(current, path: path)
    }

    @Test(arguments: 1...8)
    func everyAnswerIsTheSearchForThatObjectAlone(seed: UInt64) {
        var random = StrongCycleHistoryTests.Generator(state: seed)
        var seen: [String: Int] = [:]
        for round in 1...40 {
            let count = 6 + random.next(18)
            let nodes = (1...count).map { id in
                let alive = random.next(8) != 0
                return Node(id: TraceObjectID(UInt64(id)), kind: StrongCycleHistoryTests.kinds[random.next(StrongCycleHistoryTests.kinds.count)],
                            retainCounts: alive ? .init(strong: 1, weak: 0, unowned: 0) : nil, alive: alive)
            }
            var edges = Set<Edge>()
            for _ in 0..<(count + random.next(count)) {
                edges.insert(Edge(from: TraceObjectID(UInt64(1 + random.next(count))), to: TraceObjectID(UInt64(1 + random.next(count))),
                                  field: ["a", "b", "c"][random.next(3)], ownership: random.next(6) == 0 ? .weak : .strong))
            }
            var script = TraceScript()
            let snapshot = TraceSnapshot(index: round, seq: UInt64(round), label: "round \(round)", reason: .stop,
                                         nodes: nodes, edges: Array(edges))
            script.snapshots = [snapshot]
            let graph = OwnershipGraph(snapshot: snapshot, trace: script.trace())
            for id in (1...(count + 1)).map({ TraceObjectID(UInt64($0)) }) {
                let answer = graph.whyAlive(id)
                #expect(answer == searchedAlone(id, in: graph), "object \(id), round \(round), seed \(seed)")
                switch answer {
                case .heldByRoot(let root, _) where root == id && snapshot.node(id)?.kind == .root: seen["root itself", default: 0] += 1
                case .heldByRoot: seen["root", default: 0] += 1
                case .heldByCycle(_, let path): seen[path.isEmpty ? "on a loop" : "hung from a loop", default: 0] += 1
                case .unheld(_, let path) where !path.isEmpty: seen["from an unheld object", default: 0] += 1
                default: break
                }
            }
            if snapshot.nodes.contains(where: { node in node.kind == .root && node.alive && edges.contains { $0.to == node.id && $0.ownership.isStrong } }) {
                seen["a held root", default: 0] += 1
            }
        }
        // The random graphs reach every kind of answer, and roots that something holds.
        #expect(seen.count == 6, "\(seen)")
    }
}
