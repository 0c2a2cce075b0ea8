import LifelineLog

/// The reference graph of one snapshot, ready for questions: which objects hold each other in
/// a loop, and what keeps an object alive.
///
/// Only strong references between live objects keep anything alive, so the cycles and paths
/// follow strong edges only; weak and unowned edges are still in ``snapshot`` for drawing.
/// Every answer is deterministic: objects are taken in id order and references in the order
/// of their field name (without the positions of a collection's elements, which a set's hashing
/// picks anew in each process), then target.
///
/// ```swift
/// let graph = OwnershipGraph(snapshot: trace.snapshots.last!, trace: trace)
/// for cycle in graph.strongCycles { print(graph.words(cycle.chain)) }
/// print(graph.whyAlive(TraceObjectID(7)))
/// ```
public struct OwnershipGraph: Sendable {
    /// The snapshot the graph was built from.
    public let snapshot: TraceSnapshot
    /// The loops of every strongly connected component over strong references that contains
    /// one (more than one object, or one object that holds itself): one through its most telling
    /// object, and one more through each other object of the program that no other such object's
    /// loop runs through (``RetainCycle/loops(of:strongEdges:node:)``). Ordered by the
    /// component's smallest id. Loops through
    /// a test framework's own objects (a running `XCTestCase` and its `XCTestCaseRun`, which
    /// XCTest keeps while the test runs) are not among them: such an object holds the program's
    /// loops from outside, as any owner does.
    public let strongCycles: [RetainCycle]

    let trace: Trace
    private let nodes: [TraceObjectID: TraceSnapshot.Node]
    /// Strong references leaving each live object, ordered by field without element positions, then target (`TraceSnapshot.Edge.walkOrder`).
    private let strongEdges: [TraceObjectID: [TraceSnapshot.Edge]]
    private let strongHolders: [TraceObjectID: Int]
    /// The first loop, in ``strongCycles`` order, that nothing outside it holds and whose
    /// chain runs through each object.
    private let freeCycleOnChain: [TraceObjectID: RetainCycle]
    /// Where the search for what keeps an object alive starts: registered roots, then objects
    /// nothing holds, then the chains of the loops nothing outside them holds.
    private let origins: [TraceObjectID]
    /// The reference by which the breadth-first search from ``origins`` first reached each
    /// object it reached.
    private let reachedBy: [TraceObjectID: TraceSnapshot.Edge]
    /// How ``distinctName(of:)`` tells apart the objects that share a ``name(of:)`` with
    /// another one, by that name, decided once per name.
    let namesakeDistinctions: [String: NamesakeDistinction]
    /// How many references of each ownership lead to each object, for ``tallies(of:)``.
    let drawnReferences: [TraceObjectID: [TraceSnapshot.Ownership: Int]]

    /// Builds the graph of `snapshot`, naming its objects from the declarations in `trace`.
    public init(snapshot: TraceSnapshot, trace: Trace) {
        self.snapshot = snapshot
        self.trace = trace
        let nodes = Dictionary(snapshot.nodes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.nodes = nodes
        namesakeDistinctions = Self.namesakeDistinctions(of: snapshot, trace: trace)
        let live = { (id: TraceObjectID) in nodes[id]?.alive == true }
        let strong = snapshot.edges.filter { $0.ownership.isStrong && live($0.from) && live($0.to) }
        let strongEdges = Dictionary(grouping: strong, by: \.from).mapValues { edges in
            edges.sorted(by: TraceSnapshot.Edge.walkOrder)
        }
        self.strongEdges = strongEdges
        strongHolders = strong.reduce(into: [:]) { counts, edge in counts[edge.to, default: 0] += 1 }
        drawnReferences = snapshot.edges.reduce(into: [:]) { counts, edge in
            counts[edge.to, default: [:]][edge.ownership, default: 0] += 1
        }

        let testFramework = snapshot.testFrameworkObjects(in: trace)
        let liveNodes = snapshot.nodes.filter { $0.alive && !testFramework.contains($0.id) }.map(\.id)
        let components = StronglyConnectedComponents(
            nodes: liveNodes,
            successors: strongEdges.mapValues { edges in edges.map(\.to).filter { !testFramework.contains($0) } }
        ).components
        strongCycles = components.flatMap { component in
            RetainCycle.loops(of: component, strongEdges: strongEdges) { nodes[$0]! }
        }

        // A component's loops are held from outside together: by their component's smallest id.
        let cycles = strongCycles
        var componentOf: [TraceObjectID: TraceObjectID] = [:]
        for cycle in cycles {
            for object in cycle.objects { componentOf[object] = cycle.objects[0] }
        }
        var heldFromOutside = Set<TraceObjectID>()
        for edge in strong {
            if let component = componentOf[edge.to], componentOf[edge.from] != component { heldFromOutside.insert(component) }
        }
        let freeCycles = cycles.filter { !heldFromOutside.contains($0.objects[0]) }
        var freeCycleOnChain: [TraceObjectID: RetainCycle] = [:]
        for cycle in freeCycles {
            for object in cycle.chainObjects where freeCycleOnChain[object] == nil { freeCycleOnChain[object] = cycle }
        }
        self.freeCycleOnChain = freeCycleOnChain
        let holders = strongHolders
        origins = snapshot.nodes.filter { $0.alive && $0.kind.isRoot }.map(\.id)
            + snapshot.nodes.filter { $0.alive && !$0.kind.isRoot && holders[$0.id] == nil }.map(\.id)
            + freeCycles.flatMap(\.chainObjects).filter { nodes[$0]?.kind.isRoot != true }
        reachedBy = Self.breadthFirstTree(from: origins, strongEdges: strongEdges)
    }

    /// The reference by which a breadth-first search from `origins`, following references in
    /// order, first reaches each object. The search would reach every object the same way if
    /// it stopped at it, so one tree answers for every object.
    private static func breadthFirstTree(
        from origins: [TraceObjectID], strongEdges: [TraceObjectID: [TraceSnapshot.Edge]]
    ) -> [TraceObjectID: TraceSnapshot.Edge] {
        var reachedBy: [TraceObjectID: TraceSnapshot.Edge] = [:]
        var visited = Set(origins)
        var queue = origins
        var position = 0
        while position < queue.count {
            let current = queue[position]
            position += 1
            for edge in strongEdges[current, default: []] where visited.insert(edge.to).inserted {
                reachedBy[edge.to] = edge
                queue.append(edge.to)
            }
        }
        return reachedBy
    }

    /// The node for `id`, if the snapshot saw that object.
    public func node(_ id: TraceObjectID) -> TraceSnapshot.Node? {
        nodes[id]
    }

    /// How chains name an object: the name its root was registered under, otherwise its short
    /// type name (`ViewModel`, `Set<AnyCancellable>`, `Sink`).
    public func name(of id: TraceObjectID) -> String {
        nodes[id]?.name ?? trace.object(id)?.shortTypeName ?? "object \(id)"
    }

    /// A chain of references in words:
    /// `ViewModel.cancellables → Set<AnyCancellable> → AnyCancellable → Sink.receiveValue (closure) → ViewModel`.
    ///
    /// Each hop names the holder and the field that holds the next object. The field is left
    /// out where it says nothing to the user: a collection's element position (`[0]`), and an
    /// `AnyCancellable`'s cancel closure, which is the only thing an `AnyCancellable` holds. A
    /// global variable is named by its declaration (`static Service.shared → Service.feed`),
    /// with the place in its storage when that is not its start (`static Settings.current+8`).
    /// An object that shares its name with another one of the snapshot is told apart
    /// (``distinctName(of:)``): `Timeout.Inner #116.downstream.subscriber → Retry.Inner`.
    public func words(_ chain: [TraceSnapshot.Edge]) -> String {
        guard let last = chain.last else { return "" }
        let name = distinctName(of:)
        let hops = chain.map { edge in
            switch nodes[edge.from]?.kind {
            case .collection, .cancellable: return name(edge.from)
            case .global: return name(edge.from) + edge.field
            default: return "\(name(edge.from)).\(edge.field)"
            }
        }
        return (hops + [name(last.to)]).joined(separator: " → ")
    }

    /// What keeps `id` alive in this snapshot: the retain cycle it is on, or the shortest
    /// chain of strong references to it from a registered root, from an object nothing in the
    /// graph holds, or from a retain cycle nothing else in the graph holds.
    ///
    /// An object on the chain of a loop that nothing outside it holds is explained by that
    /// loop. Otherwise the search is breadth-first from every origin at once: roots first
    /// (a root that something in the graph holds is explained by its holder instead), then
    /// objects nothing holds, then the chains of loops nothing outside holds, each in id or
    /// chain order, following references by field, so the answer is the same for the same
    /// snapshot.
    public func whyAlive(_ id: TraceObjectID) -> AliveExplanation {
        guard let target = nodes[id] else { return .unknown }
        guard target.alive else { return .deallocated }
        if let cycle = freeCycleOnChain[id] { return .heldByCycle(cycle, path: []) }
        // Registered roots, then objects nothing in the graph holds, then the chains of the
        // loops nothing outside holds (their other objects are reached from the chain). A root
        // that something in the graph holds is explained by that holder: the search for it
        // leaves it out of the origins.
        let heldRoot = target.kind.isRoot && strongHolders[id] != nil
        let parent = heldRoot
            ? Self.breadthFirstTree(from: origins.filter { $0 != id }, strongEdges: strongEdges)
            : reachedBy
        var path: [TraceSnapshot.Edge] = []
        var current = id
        while let edge = parent[current] {
            path.insert(edge, at: 0)
            current = edge.from
        }
        let origin = current
        if nodes[origin]?.kind.isRoot == true { return .heldByRoot(origin, path: path) }
        if let cycle = freeCycleOnChain[origin] { return .heldByCycle(cycle, path: path) }
        return .unheld(origin, path: path)
    }

    /// Which object a cycle's chain starts from: a registered root, then another user object,
    /// then a task, then an AnyCancellable or a collection, then the rest; ties by id.
    static func precedesAsCycleStart(_ lhs: TraceSnapshot.Node, _ rhs: TraceSnapshot.Node) -> Bool {
        func rank(_ kind: TraceSnapshot.Node.Kind) -> Int {
            switch kind {
            case .root, .global: return 0
            case .object, .closureContext: return 1
            case .task: return 2
            case .cancellable, .collection: return 3
            case .subscriber: return 4
            case .subscription: return 5
            case .subject, .publisher: return 6
            }
        }
        return (rank(lhs.kind), lhs.id) < (rank(rhs.kind), rhs.id)
    }

    /// The shortest loop of strong references from `start` back to it inside one component;
    /// every object of a component with a loop has one.
    static func shortestLoop(
        through start: TraceObjectID, within members: Set<TraceObjectID>,
        strongEdges: [TraceObjectID: [TraceSnapshot.Edge]]
    ) -> [TraceSnapshot.Edge]? {
        var parent: [TraceObjectID: TraceSnapshot.Edge] = [:]
        var visited: Set = [start]
        var queue = [start]
        var position = 0
        while position < queue.count {
            let current = queue[position]
            position += 1
            for edge in strongEdges[current, default: []] where members.contains(edge.to) {
                if edge.to == start {
                    var loop = [edge]
                    var step = current
                    while let previous = parent[step] {
                        loop.insert(previous, at: 0)
                        step = previous.from
                    }
                    return loop
                }
                if visited.insert(edge.to).inserted {
                    parent[edge.to] = edge
                    queue.append(edge.to)
                }
            }
        }
        return nil
    }
}
