import LifelineLog

/// The loops of strong references of a log's snapshots, one snapshot after another, each found
/// from what that snapshot changed rather than from its whole graph: the same loops
/// ``OwnershipGraph/strongCycles`` finds in each snapshot.
///
/// A per-call snapshot changes a few objects among thousands. A strongly connected component
/// that holds none of the objects that changed (a node's kind, counts, liveness or references)
/// is the same component before and after, unless a changed object joins it to others; so only
/// the components that hold a changed object, and what such a component becomes, are found
/// again: among the objects that reach a changed object (or a member of a component it was on)
/// by live strong references and are reached from one.
package struct StrongCycleHistory {
    /// The loops of the snapshot last given to ``advance(to:)``, each under its smallest id.
    package private(set) var cycles: [TraceObjectID: RetainCycle] = [:]
    /// The loop each object is on, by the loop's smallest id.
    private var cycleOf: [TraceObjectID: TraceObjectID] = [:]
    private var previous: TraceSnapshot?

    package init() {}

    /// The loop `id` is on in the snapshot last given to ``advance(to:)``, if any.
    package func cycle(containing id: TraceObjectID) -> RetainCycle? {
        cycleOf[id].flatMap { cycles[$0] }
    }

    /// Moves on to `snapshot`, the next snapshot of the log.
    package mutating func advance(to snapshot: TraceSnapshot) {
        defer { previous = snapshot }
        guard let previous else {
            let all = snapshot.nodes.map(\.id)
            update(snapshot, seeds: Set(all), dropped: [])
            return
        }
        let changed = snapshot.changedNodes(since: previous)
        guard !changed.isEmpty else { return }
        var seeds = Set(changed)
        var dropped = Set<TraceObjectID>()
        for id in changed {
            guard let key = cycleOf[id], dropped.insert(key).inserted else { continue }
            seeds.formUnion(cycles[key]!.objects)
        }
        update(snapshot, seeds: seeds, dropped: dropped)
    }

    /// Finds again the components of `snapshot` that hold a seed, replaces the loops `dropped`
    /// and those the new components swallowed.
    private mutating func update(_ snapshot: TraceSnapshot, seeds: Set<TraceObjectID>, dropped: Set<TraceObjectID>) {
        let live = { (id: TraceObjectID) in snapshot.node(id)?.alive == true }
        func successors(_ id: TraceObjectID) -> [TraceSnapshot.Edge] {
            snapshot.edges(from: id).filter { $0.ownership.isStrong && live($0.to) }
        }
        // The objects that reach a seed, then those of them reached from a seed: every component
        // that holds a seed, and only whole components.
        let starts = seeds.filter(live).sorted()
        var reaching = Set(starts)
        var queue = starts
        while let current = queue.popLast() {
            for holder in snapshot.holders(of: current) where !reaching.contains(holder) && live(holder) {
                guard snapshot.edges(from: holder).contains(where: { $0.to == current && $0.ownership.isStrong }) else { continue }
                reaching.insert(holder)
                queue.append(holder)
            }
        }
        var region = Set(starts)
        var edges: [TraceObjectID: [TraceSnapshot.Edge]] = [:]
        queue = starts
        while let current = queue.popLast() {
            let inside = successors(current).filter { reaching.contains($0.to) }
            edges[current] = inside.sorted(by: TraceSnapshot.Edge.walkOrder)
            for edge in inside where region.insert(edge.to).inserted { queue.append(edge.to) }
        }
        let components = StronglyConnectedComponents(nodes: Array(region), successors: edges.mapValues { $0.map(\.to) }).components

        var removed = dropped
        var found: [RetainCycle] = []
        for component in components where component.contains(where: seeds.contains) {
            guard component.count > 1 || edges[component[0], default: []].contains(where: { $0.to == component[0] }) else { continue }
            for member in component { if let key = cycleOf[member] { removed.insert(key) } }
            let members = Set(component)
            let start = component.min { OwnershipGraph.precedesAsCycleStart(snapshot.node($0)!, snapshot.node($1)!) }!
            guard let chain = OwnershipGraph.shortestLoop(through: start, within: members, strongEdges: edges) else { continue }
            found.append(RetainCycle(objects: component, chain: chain))
        }
        for key in removed {
            guard let cycle = cycles.removeValue(forKey: key) else { continue }
            for member in cycle.objects where cycleOf[member] == key { cycleOf[member] = nil }
        }
        for cycle in found {
            let key = cycle.objects[0]
            cycles[key] = cycle
            for member in cycle.objects { cycleOf[member] = key }
        }
    }
}
