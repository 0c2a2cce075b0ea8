import LifelineLog

/// Objects that keep each other alive through strong references: a strongly connected
/// component of a snapshot's strong edges that contains a loop.
public struct RetainCycle: Hashable, Sendable {
    /// Every object of the component, ordered by id.
    public let objects: [TraceObjectID]
    /// The shortest loop of strong references through the component's most telling object (a
    /// registered root, then another user object, then an AnyCancellable or collection), from
    /// that object back to it. Put it in words with ``OwnershipGraph/words(_:)``.
    public let chain: [TraceSnapshot.Edge]

    /// The objects of ``chain``, in the loop's order, starting with the object it starts from.
    public var chainObjects: [TraceObjectID] {
        chain.map(\.from)
    }
}

extension RetainCycle {
    /// The loops of one strongly connected `component` (an empty list when it has none): the
    /// shortest loop through its most telling object (``OwnershipGraph/precedesAsCycleStart(_:_:)``),
    /// then, for each other object of the program on the component (a registered root or
    /// another user object) that no loop so far runs through, its own shortest loop, when that
    /// loop runs through no other object of the program. Each is a ``RetainCycle`` of the whole
    /// component.
    ///
    /// Two models that keep themselves alive through sinks on one subject are one component
    /// (the subject's conduits hold the subject, and the subject its conduits), but two leaks:
    /// each model's own loop is reported.
    static func loops(
        of component: [TraceObjectID], strongEdges: [TraceObjectID: [TraceSnapshot.Edge]],
        node: (TraceObjectID) -> TraceSnapshot.Node
    ) -> [RetainCycle] {
        guard component.count > 1 || strongEdges[component[0], default: []].contains(where: { $0.to == component[0] }) else { return [] }
        let members = Set(component)
        let ordered = component.sorted { OwnershipGraph.precedesAsCycleStart(node($0), node($1)) }
        guard let chain = OwnershipGraph.shortestLoop(through: ordered[0], within: members, strongEdges: strongEdges) else { return [] }
        var loops = [RetainCycle(objects: component, chain: chain)]
        let programObjects = Set(ordered.filter { [.root, .object].contains(node($0).kind) })
        var covered = Set(chain.map(\.from))
        for object in ordered where programObjects.contains(object) && !covered.contains(object) {
            guard let own = OwnershipGraph.shortestLoop(through: object, within: members, strongEdges: strongEdges),
                  own.allSatisfy({ $0.from == object || !programObjects.contains($0.from) })
            else { continue }
            loops.append(RetainCycle(objects: component, chain: own))
            covered.formUnion(own.map(\.from))
        }
        return loops
    }
}
