import LifelineHeap
import LifelineLog

/// The last snapshot's reference graph, kept between per-call snapshots and patched by each,
/// so that a per-call snapshot costs what the call changed, not what lives.
///
/// It holds the graph twice: by address, as heap inspection found it (each object with the
/// references it read, the memory they came from and that memory's fingerprint, and who
/// refers to it), and by trace id, as the log shows it (the nodes and edges of the last
/// snapshot). Every change goes through both, and the changes since ``beginSnapshot()`` are
/// what ``delta(index:seq:label:reason:base:)`` writes. The objects are also kept in an order
/// in which ``nextToRecheck(_:)`` hands them out in turns.
struct SnapshotGraph {
    /// One object the graph holds.
    struct Entry {
        var node: HeapGraph.Node
        let id: TraceObjectID
        /// The references it holds, as last read.
        var references: [HeapGraph.Reference]
        /// The memory those references were read from, and its fingerprint then.
        var regions: [Range<UInt>]
        var fingerprint: UInt64?
    }

    private(set) var entries: [UInt: Entry] = [:]
    /// For each address, the objects of the graph whose references name it, with how many.
    private var holders: [UInt: [UInt: Int]] = [:]
    /// The objects the recorder knew at the last check of each, by address.
    private(set) var known: [UInt: ObjectRegistry.LiveEntry] = [:]
    /// The known objects inspection could not read, by id: nodes without counts or edges.
    private var unreadable: [TraceObjectID: UInt] = [:]
    /// Tracked roots by address, with how many times each is tracked.
    let roots: [UInt: Int]
    private var addressByID: [TraceObjectID: UInt] = [:]

    /// The snapshot as the log shows it.
    private(set) var nodes: [TraceObjectID: TraceSnapshot.Node] = [:]
    private var edgeCounts: [TraceSnapshot.Edge: Int] = [:]
    /// The edges of the snapshot read in full whose holder is no object the graph holds: a
    /// global variable's, or an object between one and the graph's objects
    /// (``HeapInspector/inspectGlobals(_:reaching:objectLimit:excluding:)``), by holder. They
    /// stay as that snapshot found them until their holder is read again or their target leaves.
    private var foreignEdges: [TraceObjectID: [TraceSnapshot.Edge]] = [:]

    /// What changed since ``beginSnapshot()``: each node and edge as it was before its first
    /// change, and the nodes checked.
    private var nodesBefore: [TraceObjectID: TraceSnapshot.Node?] = [:]
    private var edgesBefore: [TraceSnapshot.Edge: Bool] = [:]
    private(set) var checked = Set<TraceObjectID>()
    /// An object taken out of the graph.
    struct Departure {
        let address: UInt
        let typeName: String
        let id: TraceObjectID
    }

    /// The objects taken out since ``beginSnapshot()``.
    private(set) var departed: [Departure] = []

    /// The objects in the order they are rechecked in turns; an address no longer in the
    /// graph is skipped (and dropped when the list is compacted).
    private var recheckOrder: [UInt] = []
    private var recheckCursor = 0

    /// The kind, name and counts of the node for an entry, as the recorder names it.
    let describe: (HeapGraph.Node, TraceObjectID, ObjectRegistry.LiveEntry?, _ recorderWeak: Int) -> TraceSnapshot.Node
    /// The call site of the closure whose function is at an address
    /// (``CallSiteRecorder/closureSite(function:)``).
    let closureSite: (UInt) -> UInt64?

    /// The graph of a snapshot that read everything: `graph` by address, named by `ids`, and
    /// `snapshot`, what the log shows of it; `order` is the discovery order.
    init(
        graph: HeapGraph, ids: [UInt: TraceObjectID], snapshot: TraceSnapshot, known: [UInt: ObjectRegistry.LiveEntry],
        rootAddresses: [UInt], order: [UInt], closureSite: @escaping (UInt) -> UInt64?,
        describe: @escaping (HeapGraph.Node, TraceObjectID, ObjectRegistry.LiveEntry?, Int) -> TraceSnapshot.Node
    ) {
        self.describe = describe
        self.closureSite = closureSite
        self.known = known
        var roots: [UInt: Int] = [:]
        for address in rootAddresses { roots[address, default: 0] += 1 }
        self.roots = roots
        var referencesByHolder: [UInt: [HeapGraph.Reference]] = [:]
        for reference in graph.references { referencesByHolder[reference.from, default: []].append(reference) }
        for address in order {
            guard let node = graph.nodes[address], let id = ids[address], addressByID[id] == nil else { continue }
            let references = referencesByHolder[address] ?? []
            entries[address] = Entry(
                node: node, id: id, references: references, regions: graph.regions(of: address),
                fingerprint: graph.fingerprint(of: address)
            )
            addressByID[id] = address
            for reference in references { holders[reference.to, default: [:]][address, default: 0] += 1 }
        }
        for (address, entry) in known where entries[address] == nil { unreadable[entry.id] = address }
        for node in snapshot.nodes { nodes[node.id] = node }
        for entry in entries.values {
            for reference in entry.references {
                guard let to = entries[reference.to]?.id else { continue }
                edgeCounts[edge(reference, from: entry.id, to: to), default: 0] += 1
            }
        }
        for edge in snapshot.edges where addressByID[edge.from] == nil {
            foreignEdges[edge.from, default: []].append(edge)
            edgeCounts[edge, default: 0] += 1
        }
        recheckOrder = order.filter { entries[$0] != nil }
    }

    /// Whether `address` is where a walk starts (a known object or a root): it stays in the
    /// graph while it lives, whoever refers to it.
    func isStart(_ address: UInt) -> Bool {
        known[address] != nil || roots[address] != nil
    }

    /// The address of the object the graph names `id`, when it holds one.
    func address(of id: TraceObjectID) -> UInt? {
        addressByID[id] ?? unreadable[id]
    }

    /// The objects whose references name `address`.
    func holders(of address: UInt) -> [UInt] {
        holders[address].map { Array($0.keys) } ?? []
    }

    /// Forgets what changed: the next delta starts here.
    mutating func beginSnapshot() {
        nodesBefore = [:]
        edgesBefore = [:]
        checked = []
        departed = []
    }

    /// The next `count` objects in turn, for their memory to be checked.
    mutating func nextToRecheck(_ count: Int) -> [UInt] {
        if recheckOrder.count > 2 * entries.count + 64 {
            recheckOrder = recheckOrder.filter { entries[$0] != nil }
            recheckCursor = 0
        }
        var chosen: [UInt] = []
        var seen = Set<UInt>()
        var visited = 0
        while chosen.count < count, visited < recheckOrder.count {
            if recheckCursor >= recheckOrder.count { recheckCursor = 0 }
            let address = recheckOrder[recheckCursor]
            recheckCursor += 1
            visited += 1
            if entries[address] != nil, seen.insert(address).inserted { chosen.append(address) }
        }
        return chosen
    }

    // MARK: Changes

    /// Notes that the recorder knows the object at `address` as `entry` (or no longer knows
    /// it, `nil`).
    mutating func setKnown(_ entry: ObjectRegistry.LiveEntry?, at address: UInt) {
        if let old = known[address], unreadable[old.id] == address {
            unreadable[old.id] = nil
            setNode(nil, for: old.id)
        }
        known[address] = entry
    }

    /// Shows a known object inspection could not read: alive, without counts or edges.
    mutating func markUnreadable(_ entry: ObjectRegistry.LiveEntry, at address: UInt, kind: TraceSnapshot.Node.Kind) {
        guard entries[address] == nil, addressByID[entry.id] == nil else { return }
        unreadable[entry.id] = address
        checked.insert(entry.id)
        setNode(TraceSnapshot.Node(id: entry.id, kind: kind, name: nil, retainCounts: nil, alive: true), for: entry.id)
    }

    /// Notes that a check found the object at `address` as it was, now with `counts`.
    mutating func confirm(_ address: UInt, counts: HeapGraph.Counts?) {
        guard var entry = entries[address] else { return }
        entry.node.counts = counts
        entries[address] = entry
        checked.insert(entry.id)
        setNode(describe(entry.node, entry.id, known[address], recorderWeak(address)), for: entry.id)
    }

    /// Puts in or replaces the object at `address`: read now, with `references`.
    mutating func put(
        _ node: HeapGraph.Node, id: TraceObjectID, references: [HeapGraph.Reference], regions: [Range<UInt>],
        fingerprint: UInt64?
    ) {
        let address = node.address
        if let old = entries[address], old.id != id { remove(address) }
        let isNew = entries[address] == nil
        if let old = entries[address] {
            for reference in old.references { unlink(reference) }
        } else {
            addressByID[id] = address
            recheckOrder.append(address)
        }
        for foreign in foreignEdges.removeValue(forKey: id) ?? [] { changeEdge(foreign, by: -1) }
        entries[address] = Entry(node: node, id: id, references: references, regions: regions, fingerprint: fingerprint)
        checked.insert(id)
        setNode(describe(node, id, known[address], recorderWeak(address)), for: id)
        if isNew {
            // Holders that already named this address now name this object.
            for holder in holders[address]?.keys ?? [:].keys {
                guard let holderEntry = entries[holder] else { continue }
                for reference in holderEntry.references where reference.to == address {
                    changeEdge(edge(reference, from: holderEntry.id, to: id), by: 1)
                }
            }
        }
        for reference in references { link(reference) }
    }

    /// Takes the object at `address` out, with its references; those that name it stay with
    /// their holders until they are read again.
    mutating func remove(_ address: UInt) {
        guard let entry = entries[address] else { return }
        for reference in entry.references { unlink(reference) }
        entries[address] = nil
        for holder in holders[address]?.keys ?? [:].keys {
            guard let holderEntry = entries[holder] else { continue }
            for reference in holderEntry.references where reference.to == address {
                changeEdge(edge(reference, from: holderEntry.id, to: entry.id), by: -1)
            }
        }
        if addressByID[entry.id] == address { addressByID[entry.id] = nil }
        for (holder, edges) in foreignEdges where edges.contains(where: { $0.to == entry.id }) {
            for foreign in edges where foreign.to == entry.id { changeEdge(foreign, by: -1) }
            foreignEdges[holder] = edges.filter { $0.to != entry.id }
        }
        setNode(nil, for: entry.id)
        departed.append(Departure(address: address, typeName: entry.node.typeName, id: entry.id))
    }

    /// Takes out, one after the other, the objects no start reaches any more because nothing
    /// in the graph refers to them now; returns their addresses.
    mutating func removeUnreferenced(from candidates: some Sequence<UInt>) -> [UInt] {
        var removed: [UInt] = []
        var queue = Array(candidates)
        while let address = queue.popLast() {
            guard let entry = entries[address], !isStart(address),
                  (holders[address] ?? [:]).keys.allSatisfy({ entries[$0] == nil || $0 == address })
            else { continue }
            remove(address)
            removed.append(address)
            queue.append(contentsOf: entry.references.map(\.to))
        }
        return removed
    }

    private func recorderWeak(_ address: UInt) -> Int {
        (known[address]?.recorderReferences.weak ?? 0) + (roots[address] ?? 0)
    }

    private mutating func link(_ reference: HeapGraph.Reference) {
        holders[reference.to, default: [:]][reference.from, default: 0] += 1
        guard let from = entries[reference.from]?.id, let to = entries[reference.to]?.id else { return }
        changeEdge(edge(reference, from: from, to: to), by: 1)
    }

    private mutating func unlink(_ reference: HeapGraph.Reference) {
        if let count = holders[reference.to]?[reference.from] {
            holders[reference.to]?[reference.from] = count > 1 ? count - 1 : nil
            if holders[reference.to]?.isEmpty == true { holders[reference.to] = nil }
        }
        guard let from = entries[reference.from]?.id, let to = entries[reference.to]?.id else { return }
        changeEdge(edge(reference, from: from, to: to), by: -1)
    }

    private func edge(_ reference: HeapGraph.Reference, from: TraceObjectID, to: TraceObjectID) -> TraceSnapshot.Edge {
        TraceSnapshot.Edge(reference, from: from, to: to, closureSite: closureSite)
    }

    private mutating func changeEdge(_ edge: TraceSnapshot.Edge, by change: Int) {
        let count = edgeCounts[edge] ?? 0
        if edgesBefore[edge] == nil { edgesBefore[edge] = count > 0 }
        edgeCounts[edge] = count + change > 0 ? count + change : nil
    }

    private mutating func setNode(_ node: TraceSnapshot.Node?, for id: TraceObjectID) {
        if nodesBefore[id] == nil { nodesBefore[id] = .some(nodes[id]) }
        nodes[id] = node
    }

    // MARK: Output

    /// What changed since ``beginSnapshot()``, as a delta snapshot line on `base`.
    func delta(index: Int, seq: UInt64, label: String, reason: TraceSnapshot.Reason, base: Int) -> TraceSnapshotDelta {
        var changed: [TraceSnapshot.Node] = []
        var removed: [TraceObjectID] = []
        for (id, before) in nodesBefore {
            let after = nodes[id]
            if let after, after != before { changed.append(after) }
            if before != nil, after == nil { removed.append(id) }
        }
        let gone = Set(removed)
        var added: [TraceSnapshot.Edge] = [], dropped: [TraceSnapshot.Edge] = []
        for (edge, wasThere) in edgesBefore {
            let isThere = edgeCounts[edge] != nil
            if isThere, !wasThere { added.append(edge) }
            if wasThere, !isThere, !gone.contains(edge.from), !gone.contains(edge.to) { dropped.append(edge) }
        }
        let changedIDs = Set(changed.map(\.id))
        return TraceSnapshotDelta(
            index: index, seq: seq, label: label, reason: reason, base: base,
            nodes: changed.sorted { $0.id < $1.id }, removedNodes: removed.sorted(),
            edges: added.sorted(by: Self.edgeOrder), removedEdges: dropped.sorted(by: Self.edgeOrder),
            checked: checked.filter { nodes[$0] != nil && !changedIDs.contains($0) }.sorted()
        )
    }

    /// The graph by trace id as the log shows it now, every node and edge: for tests.
    var nodesAndEdges: (nodes: [TraceSnapshot.Node], edges: Set<TraceSnapshot.Edge>) {
        (Array(nodes.values), Set(edgeCounts.keys))
    }

    /// The graph by address, for comparing with a full read: for tests.
    var addressGraph: HeapGraph {
        var graph = HeapGraph()
        for (address, entry) in entries {
            graph.nodes[address] = entry.node
            graph.references += entry.references.filter { entries[$0.to] != nil }
        }
        return graph
    }

    /// The order of ``TraceSnapshot/edges``.
    static func edgeOrder(_ lhs: TraceSnapshot.Edge, _ rhs: TraceSnapshot.Edge) -> Bool {
        (lhs.from.rawValue, lhs.field, lhs.to.rawValue, lhs.ownership.rawValue)
            < (rhs.from.rawValue, rhs.field, rhs.to.rawValue, rhs.ownership.rawValue)
    }
}
