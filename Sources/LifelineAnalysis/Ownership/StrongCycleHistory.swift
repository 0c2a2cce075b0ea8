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
    /// The loops of each component of the snapshot last given to ``advance(to:)``, under the
    /// component's smallest id (``RetainCycle/loops(of:strongEdges:node:)``).
    package private(set) var components: [TraceObjectID: [RetainCycle]] = [:]
    /// The component each object is on, by its smallest id.
    private var cycleOf: [TraceObjectID: TraceObjectID] = [:]
    private var previous: TraceSnapshot?

    package init() {}

    /// Every loop of the snapshot last given to ``advance(to:)``.
    package var cycles: [RetainCycle] {
        components.values.flatMap { $0 }
    }

    /// The loops of the component `id` is on in the snapshot last given to ``advance(to:)``.
    package func cycles(containing id: TraceObjectID) -> [RetainCycle] {
        cycleOf[id].flatMap { components[$0] } ?? []
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
            seeds.formUnion(components[key]![0].objects)
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
        let all = StronglyConnectedComponents(nodes: Array(region), successors: edges.mapValues { $0.map(\.to) }).components

        var removed = dropped
        var found: [[RetainCycle]] = []
        for component in all where component.contains(where: seeds.contains) {
            let loops = RetainCycle.loops(of: component, strongEdges: edges) { snapshot.node($0)! }
            guard !loops.isEmpty else { continue }
            for member in component { if let key = cycleOf[member] { removed.insert(key) } }
            found.append(loops)
        }
        for key in removed {
            guard let loops = self.components.removeValue(forKey: key) else { continue }
            for member in loops[0].objects where cycleOf[member] == key { cycleOf[member] = nil }
        }
        for loops in found {
            let key = loops[0].objects[0]
            self.components[key] = loops
            for member in loops[0].objects { cycleOf[member] = key }
        }
    }
}
