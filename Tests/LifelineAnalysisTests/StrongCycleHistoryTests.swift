import LifelineLog
import Testing
@testable import LifelineAnalysis

/// `retain-cycle` finds each snapshot's loops from what the snapshot changed
/// (``StrongCycleHistory``): on a long run of random changes to a small graph (references made
/// and dropped, objects dying, leaving and coming, kinds changing), the loops it keeps after
/// every snapshot, and which of them it reports, are exactly what the snapshot's whole graph
/// gives.
@Suite struct StrongCycleHistoryTests {
    typealias Edge = TraceSnapshot.Edge
    typealias Node = TraceSnapshot.Node

    /// A small deterministic generator (SplitMix64), so a failure repeats.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    static let kinds: [Node.Kind] = [.subject, .subscription, .subscriber, .cancellable, .collection, .root, .object, .closureContext]

    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func theLoopsOfEachSnapshotAreThoseOfItsWholeGraph(seed: UInt64) {
        var random = Generator(state: seed)
        var nodes: [TraceObjectID: Node] = [:]
        var edges = Set<Edge>()
        func node(_ id: Int, kind: Node.Kind? = nil, alive: Bool = true) -> Node {
            Node(id: TraceObjectID(UInt64(id)), kind: kind ?? Self.kinds[random.next(Self.kinds.count)],
                 retainCounts: alive ? .init(strong: 1, weak: 0, unowned: 0) : nil, alive: alive)
        }
        for id in 1...14 { nodes[TraceObjectID(UInt64(id))] = node(id) }
        var history = StrongCycleHistory()
        var snapshots: [TraceSnapshot] = []
        var seenLoops = 0
        for index in 1...400 {
            for _ in 0..<(1 + random.next(3)) {
                let ids = nodes.keys.sorted()
                let from = ids[random.next(ids.count)], to = ids[random.next(ids.count)]
                switch random.next(10) {
                case 0..<4:
                    edges.insert(Edge(from: from, to: to, field: ["a", "b"][random.next(2)], ownership: random.next(5) == 0 ? .weak : .strong))
                case 4..<7:
                    if let edge = edges.filter({ $0.from == from }).sorted(by: { ($0.to, $0.field) < ($1.to, $1.field) }).first {
                        edges.remove(edge)
                    }
                case 7:
                    nodes[from] = node(Int(from.rawValue), kind: nodes[from]!.kind, alive: !nodes[from]!.alive)
                case 8:
                    if nodes.count > 4 {
                        nodes[from] = nil
                        edges = edges.filter { $0.from != from && $0.to != from }
                    }
                    let fresh = Int((nodes.keys.max()?.rawValue ?? 0) + 1 + UInt64(random.next(3)))
                    nodes[TraceObjectID(UInt64(fresh))] = node(fresh)
                default:
                    nodes[from] = node(Int(from.rawValue), alive: nodes[from]!.alive)
                }
            }
            let snapshot = TraceSnapshot(
                index: index, seq: UInt64(index), label: "after call \(index)", reason: .subscribe,
                nodes: Array(nodes.values), edges: Array(edges)
            )
            snapshots.append(snapshot)
            history.advance(to: snapshot)
            var script = TraceScript()
            script.snapshots = [snapshot]
            let whole = OwnershipGraph(snapshot: snapshot, trace: script.trace())
            #expect(Set(history.cycles) == Set(whole.strongCycles), "snapshot \(index), seed \(seed)")
            seenLoops += whole.strongCycles.count
        }
        #expect(seenLoops > 100, "the run made loops to find: \(seenLoops)")
    }
}
