import LifelineHeap
import LifelineLog
import Synchronization

/// Takes reference-graph snapshots for one recording and turns them into log lines.
///
/// A snapshot inspects every live object the recorder knows and every tracked root
/// (``TrackedRoots``), through ``HeapInspector``, and names what it finds with trace ids:
/// objects the registry knows keep their ids; objects only inspection reached (a view model,
/// a set's storage) get ids of their own, declared with the role `object`. Snapshots are
/// taken one at a time.
///
/// Nothing tells when an object only inspection reached dies, and its address can go to a
/// new object of the same type. So such an object keeps its id only while consecutive
/// snapshots see it at the same address; one that a snapshot missed gets a new id when it
/// appears again. Two objects of one type at one address are then told apart whenever a
/// snapshot came between them, and which ids a run gets does not depend on where malloc
/// happened to put its objects.
///
/// Every live object the recorder knows is a node, with its references when inspection could
/// read it, or alone, without counts, when it could not.
///
/// A per-call snapshot (after a subscribe, completion or cancel) reads the fields of only what
/// changed since the last snapshot: the objects of the events since then (``touch(_:)``), the
/// objects declared since, the holders of the objects that died, every object whose memory
/// fingerprint changed (which catches what the program changes outside Combine's calls: a
/// field it sets, a cancellable it stores in a set after `sink` returned), and whatever new
/// they reach. Everything else keeps the references the last snapshot found; every object's
/// counts are read again. It is written as what changed since the last snapshot
/// (``TraceSnapshotDelta``). Every ``fullReadInterval``-th per-call snapshot reads everything
/// again, as the stop snapshot and the snapshots the program asks for do.
///
/// Two refinements keep one id per object:
/// - When the recorder later meets such an object in a call, or `Lifeline.track` names it,
///   the registry takes over the id the last snapshot gave it (``claim(address:typeName:)``).
/// - A collection is named by where it is stored: a `Set<AnyCancellable>` whose storage moved
///   when it grew keeps its id while the same holder stores it in the same field.
final class SnapshotRecorder: Sendable {
    private struct State {
        var taken = 0
        /// What the last snapshot saw, for the next per-call snapshot to start from.
        var last: Baseline?
        /// Per-call snapshots since one last read everything.
        var perCallSinceFullRead = 0
        /// How many objects the last snapshot read the fields of.
        var lastObjectsRead = 0
        /// Set by ``compareReads()``.
        var comparison: ReadComparison?
        /// Roots by id, with their names, including roots that have died since.
        var rootNames: [TraceObjectID: String] = [:]
        /// Ids of the collections the last snapshot discovered, by holder and field.
        var collections: [CollectionKey: TraceObjectID] = [:]
    }

    /// What one snapshot saw: the graph by address, the recorder's objects at that moment, and
    /// the snapshot it wrote (in full).
    private struct Baseline {
        let graph: HeapGraph
        let known: [UInt: ObjectRegistry.LiveEntry]
        let rootAddresses: [UInt]
        let snapshot: TraceSnapshot
    }

    /// Every how many per-call snapshots one reads every object again.
    static let fullReadInterval = 64

    private struct DiscoveredKey: Hashable {
        let address: UInt
        /// The full type name, run-dependent addresses removed (as `TypeName.full`).
        let typeName: String
    }

    private struct CollectionKey: Hashable {
        let holder: TraceObjectID
        let field: String
        let typeName: String
    }

    private let state = Mutex(State())
    /// Ids of the objects only inspection reached in the last snapshot, by address and type.
    /// Its own lock, held for nothing else, so that the registry can claim an id while it
    /// holds its own.
    private let discovered = Mutex<[DiscoveredKey: TraceObjectID]>([:])
    private let inspector = HeapInspector()
    /// ``TypeName`` results by type name: every snapshot names every node again, and parsing a
    /// pipeline's nested generic type name costs more than reading the object.
    private let typeNames = Mutex<(short: [String: String], full: [String: String])>(([:], [:]))

    private func shortened(_ typeName: String) -> String {
        if let known = typeNames.withLock({ $0.short[typeName] }) { return known }
        let short = TypeName.shortened(typeName)
        typeNames.withLock { $0.short[typeName] = short }
        return short
    }

    private func withoutAddresses(_ typeName: String) -> String {
        if let known = typeNames.withLock({ $0.full[typeName] }) { return known }
        let full = TypeName.removingAddresses(from: typeName)
        typeNames.withLock { $0.full[typeName] = full }
        return full
    }
    /// The objects of the events recorded since the last snapshot, when snapshots are taken
    /// after every call.
    private let touched = Mutex(Set<TraceObjectID>())

    /// Notes the objects an event names: the next per-call snapshot reads them again.
    func touch(_ event: TraceEvent.Kind) {
        let objects = event.objects
        touched.withLock { $0.formUnion(objects) }
    }

    /// How many objects the last snapshot read the fields of (the rest it only took from the
    /// snapshot before), for tests.
    var objectsReadByLastSnapshot: Int {
        state.withLock { $0.lastObjectsRead }
    }

    /// What ``compareReads()`` found.
    struct ReadComparison {
        /// Where a per-call snapshot's graph differed from a full read of the same moment: one
        /// line each, `after subscribe #12: missing Holder.field → Target`.
        var differences: [String] = []
        /// Every snapshot written since, in full.
        var snapshots: [TraceSnapshot] = []
    }

    /// From now on, each per-call snapshot that reads only what changed also reads everything
    /// and notes where the two graphs differ, and every snapshot is kept in full, for tests.
    func compareReads() {
        state.withLock { $0.comparison = ReadComparison() }
    }

    /// What ``compareReads()`` found.
    var readComparison: ReadComparison? {
        state.withLock { $0.comparison }
    }

    /// The id the last snapshot gave the object at `address` of type `typeName` (a
    /// `TypeName.full`), if it discovered one there; the object is the registry's from now on.
    func claim(address: UInt, typeName: String) -> TraceObjectID? {
        discovered.withLock { $0.removeValue(forKey: DiscoveredKey(address: address, typeName: typeName)) }
    }

    /// Forgets the root `id` was registered as: later snapshots show it as the object it is.
    func forgetRoot(_ id: TraceObjectID) {
        state.withLock { _ = $0.rootNames.removeValue(forKey: id) }
    }

    /// Inspects the heap and writes a snapshot line (after the declarations it needs).
    func take(label: String, reason: TraceSnapshot.Reason, in session: RecordingSession, roots: TrackedRoots) {
        // Identifying a root may declare it: done before taking the lock.
        var rootNames: [(id: TraceObjectID, name: String)] = []
        var rootAddresses: [UInt] = []
        roots.forEachLiving { root in
            rootNames.append((session.identify(root.object, role: .object), root.name))
            rootAddresses.append(HeapInspector.address(of: root.object))
        }
        state.withLock { state in
            for root in rootNames { state.rootNames[root.id] = root.name }
            let seq = session.lastSeq
            let known = session.registry.liveAddresses()
            // Lifeline's own objects (the hook bridge a subscription tap holds, the session
            // behind it) are not the program's, unless the registry knows them (proxies).
            let knownInIDOrder = known.sorted { $0.value.id < $1.value.id }.map(\.key)
            let starts = rootAddresses + knownInIDOrder
            let excluding = { (address: UInt, typeName: String) in known[address] == nil && Self.isTracerType(typeName) }
            let touchedIDs = touched.withLock { touched in
                defer { touched.removeAll() }
                return touched
            }
            let graph: HeapGraph
            var base: TraceSnapshot?
            if [.subscribe, .completion, .cancel].contains(reason), let last = state.last, last.rootAddresses == rootAddresses {
                base = last.snapshot
                if state.perCallSinceFullRead + 1 < Self.fullReadInterval {
                    state.perCallSinceFullRead += 1
                    let update = updatedGraph(last, known: known, touched: touchedIDs, starts: starts, excluding: excluding)
                    graph = update.graph
                    state.lastObjectsRead = update.read
                    if state.comparison != nil {
                        let full = inspector.inspect(roots: starts, excluding: excluding)
                        state.comparison?.differences += Self.differences(between: graph, and: full).map { "\(label): \($0)" }
                    }
                } else {
                    state.perCallSinceFullRead = 0
                    graph = inspector.inspect(roots: starts, excluding: excluding)
                    state.lastObjectsRead = graph.read.count
                }
            } else {
                state.perCallSinceFullRead = 0
                graph = inspector.inspect(roots: starts, excluding: excluding)
                state.lastObjectsRead = graph.read.count
            }

            // The recorder's own weak references: the registry's to each object it knows, and
            // one to each tracked root.
            var recorderWeak: [UInt: Int] = [:]
            for address in known.keys { recorderWeak[address, default: 0] += 1 }
            for address in rootAddresses { recorderWeak[address, default: 0] += 1 }

            var ids: [UInt: TraceObjectID] = [:]
            var nodes: [TraceSnapshot.Node] = []
            let seenBefore = discovered.withLock { $0 }
            var seenNow: [DiscoveredKey: TraceObjectID] = [:]
            var collections: [CollectionKey: TraceObjectID] = [:]
            let order = Self.discoveryOrder(of: graph, from: starts)
            let holders = Self.firstHolders(in: graph, order: order)
            for address in order {
                let node = graph.nodes[address]!
                let entry = known[node.address]
                var found = entry?.id
                if found == nil, node.isCollection, let holder = holders[address], let holderID = ids[holder.address] {
                    let key = CollectionKey(holder: holderID, field: holder.path, typeName: withoutAddresses(node.typeName))
                    if let earlier = state.collections[key], !ids.values.contains(earlier) {
                        found = earlier
                        seenNow[DiscoveredKey(address: address, typeName: key.typeName)] = earlier
                    }
                    found = found ?? discoveredID(node, seenBefore: seenBefore, seenNow: &seenNow, session: session)
                    collections[key] = found
                }
                let id = found ?? discoveredID(node, seenBefore: seenBefore, seenNow: &seenNow, session: session)
                ids[node.address] = id
                nodes.append(TraceSnapshot.Node(
                    id: id, kind: kind(of: node, id: id, role: entry?.role, roots: state.rootNames), name: state.rootNames[id],
                    retainCounts: node.counts.map {
                        TraceSnapshot.RetainCounts(
                            strong: $0.strong, weak: $0.weak, unowned: $0.unowned, recorderWeak: recorderWeak[node.address] ?? 0
                        )
                    },
                    alive: true, opaque: node.isOpaque
                ))
            }
            discovered.withLock { $0 = seenNow }
            state.collections = collections
            // An object the recorder knows is alive is in the snapshot even when inspection could
            // not read it (a type it cannot validate): shown alive, without counts or edges.
            for (address, entry) in known where ids[address] == nil {
                ids[address] = entry.id
                let kind: TraceSnapshot.Node.Kind = switch (state.rootNames[entry.id], entry.role) {
                case (_?, _): .root
                case (nil, .publisher): .publisher
                case (nil, .subscription): .subscription
                case (nil, .subscriber): .subscriber
                case (nil, .object): .object
                }
                nodes.append(TraceSnapshot.Node(id: entry.id, kind: kind, name: state.rootNames[entry.id], retainCounts: nil, alive: true))
            }
            let liveIDs = Set(known.values.map(\.id))
            for (id, name) in state.rootNames.sorted(by: { $0.key < $1.key }) where !liveIDs.contains(id) && !ids.values.contains(id) {
                nodes.append(TraceSnapshot.Node(id: id, kind: .root, name: name, retainCounts: nil, alive: false))
            }
            let edges = graph.references.compactMap { reference -> TraceSnapshot.Edge? in
                guard let from = ids[reference.from], let to = ids[reference.to] else { return nil }
                return TraceSnapshot.Edge(from: from, to: to, field: reference.path, ownership: ownership(reference.ownership))
            }
            // Two addresses can come to one id (an object the registry took over from an
            // earlier snapshot, while another object sits where the snapshot saw it): one node
            // each, the first; their edges once.
            var nodeIDs = Set<TraceObjectID>(), uniqueEdges = Set<TraceSnapshot.Edge>()
            state.taken += 1
            let snapshot = TraceSnapshot(
                index: state.taken, seq: seq, label: label, reason: reason, nodes: nodes.filter { nodeIDs.insert($0.id).inserted },
                edges: edges.filter { uniqueEdges.insert($0).inserted }
            )
            if let base {
                session.write(TraceSnapshotDelta(from: base, to: snapshot))
            } else {
                session.write(snapshot)
            }
            state.last = Baseline(graph: graph, known: known, rootAddresses: rootAddresses, snapshot: snapshot)
            state.comparison?.snapshots.append(snapshot)
        }
    }

    /// The last snapshot's graph, with what changed since read again: the objects `touched`
    /// names, the objects the recorder declared since, the objects whose memory changed (each
    /// object's fingerprint, ``HeapInspector/recheck(_:)``), the holders of the objects that
    /// died, and what they reach that the last snapshot did not. Every object's counts are read
    /// again; objects no start reaches any more leave the graph. Also returns how many
    /// objects' fields were read.
    private func updatedGraph(
        _ last: Baseline, known: [UInt: ObjectRegistry.LiveEntry], touched: Set<TraceObjectID>, starts: [UInt],
        excluding: (UInt, String) -> Bool
    ) -> (graph: HeapGraph, read: Int) {
        var graph = last.graph
        var regions = graph.regions
        for address in graph.nodes.keys where regions[address] == nil { regions[address] = [] }
        var changed = Set<UInt>()
        for (address, recheck) in inspector.recheck(regions) {
            graph.nodes[address]?.counts = recheck.counts
            if recheck.isDeiniting || recheck.fingerprint == nil || recheck.fingerprint != graph.fingerprints[address] {
                changed.insert(address)
            }
        }
        let gone = last.known.compactMap { address, entry in known[address]?.id == entry.id ? nil : address }
        changed.formUnion(gone)
        for (address, entry) in known where touched.contains(entry.id) || last.known[address]?.id != entry.id {
            changed.insert(address)
        }
        var holders: [UInt: [UInt]] = [:]
        for reference in graph.references where reference.from != reference.to {
            holders[reference.to, default: []].append(reference.from)
        }
        // A weak reference to an object that died changes nothing in its holder's memory.
        var toRead = changed
        for address in gone { toRead.formUnion(holders[address] ?? []) }
        for address in gone where known[address] == nil { toRead.remove(address) }
        // A collection is part of its holder's value, read with it: its holders are read.
        var collections = toRead.filter { graph.nodes[$0]?.isCollection == true }
        while let collection = collections.popFirst() {
            toRead.remove(collection)
            for holder in holders[collection] ?? [] where toRead.insert(holder).inserted {
                if graph.nodes[holder]?.isCollection == true { collections.insert(holder) }
            }
        }
        var unchanged: [UInt: String] = [:]
        for (address, node) in graph.nodes where !toRead.contains(address) && !changed.contains(address) {
            unchanged[address] = node.typeName
        }
        let fresh = inspector.inspect(roots: toRead.sorted(), known: unchanged, excluding: excluding)

        // The objects read again hold what this reading found; the rest what they held before.
        let replaced = changed.union(toRead).union(fresh.read)
        for address in replaced where fresh.nodes[address] == nil { graph.nodes[address] = nil }
        for (address, node) in fresh.nodes { graph.nodes[address] = node }
        for address in replaced {
            graph.regions[address] = fresh.regions[address]
            graph.fingerprints[address] = fresh.fingerprints[address]
        }
        var references = graph.references.filter { !replaced.contains($0.from) }
        references += fresh.references

        // What no start reaches any more is gone.
        var referencesByHolder: [UInt: [HeapGraph.Reference]] = [:]
        for reference in references { referencesByHolder[reference.from, default: []].append(reference) }
        var reached = Set<UInt>()
        var queue = starts.filter { graph.nodes[$0] != nil }
        while let address = queue.popLast() {
            guard reached.insert(address).inserted else { continue }
            for reference in referencesByHolder[address] ?? [] where graph.nodes[reference.to] != nil {
                queue.append(reference.to)
            }
        }
        graph.nodes = graph.nodes.filter { reached.contains($0.key) }
        graph.regions = graph.regions.filter { reached.contains($0.key) }
        graph.fingerprints = graph.fingerprints.filter { reached.contains($0.key) }
        graph.references = references.filter { reached.contains($0.from) && reached.contains($0.to) }
        return (graph, fresh.read.count)
    }

    /// Where `graph` differs from `full`, the same moment read in full.
    private static func differences(between graph: HeapGraph, and full: HeapGraph) -> [String] {
        func name(_ address: UInt) -> String {
            (full.nodes[address] ?? graph.nodes[address]).map { TypeName.removingAddresses(from: $0.typeName) } ?? "?"
        }
        func text(_ reference: HeapGraph.Reference) -> String {
            "\(name(reference.from)).\(reference.path) → \(name(reference.to))"
        }
        var differences: [String] = []
        for (address, node) in full.nodes where graph.nodes[address] != node {
            differences.append(graph.nodes[address] == nil ? "missing \(name(address))" : "differs \(name(address))")
        }
        for address in graph.nodes.keys where full.nodes[address] == nil { differences.append("extra \(name(address))") }
        let references = Set(graph.references), fullReferences = Set(full.references)
        for reference in full.references where !references.contains(reference) { differences.append("missing \(text(reference))") }
        for reference in graph.references where !fullReferences.contains(reference) { differences.append("extra \(text(reference))") }
        return differences.sorted()
    }

    /// The graph's objects in an order that does not depend on where they happen to be in
    /// memory, so that the objects inspection discovers get the same ids in every run: breadth
    /// first from `starts` (roots, then known objects by id), following each object's
    /// references by field; anything left over by type name.
    static func discoveryOrder(of graph: HeapGraph, from starts: [UInt]) -> [UInt] {
        var referencesByHolder: [UInt: [HeapGraph.Reference]] = [:]
        for reference in graph.references { referencesByHolder[reference.from, default: []].append(reference) }
        var order: [UInt] = []
        var seen = Set<UInt>()
        var queue = starts.filter { graph.nodes[$0] != nil }
        var next = 0
        while next < queue.count {
            let address = queue[next]
            next += 1
            guard seen.insert(address).inserted else { continue }
            order.append(address)
            let references = (referencesByHolder[address] ?? []).sorted { ($0.path, $0.to) < ($1.path, $1.to) }
            queue.append(contentsOf: references.map(\.to).filter { !seen.contains($0) })
        }
        let rest = graph.nodes.values.filter { !seen.contains($0.address) }
            .sorted { ($0.typeName, $0.address) < ($1.typeName, $1.address) }
        return order + rest.map(\.address)
    }

    /// For each object of the graph, the reference that reached it first in discovery order
    /// (`order`): the holder that names a collection.
    private static func firstHolders(in graph: HeapGraph, order: [UInt]) -> [UInt: (address: UInt, path: String)] {
        let position = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
        var holders: [UInt: (address: UInt, path: String)] = [:]
        for reference in graph.references where reference.from != reference.to {
            guard let from = position[reference.from] else { continue }
            if let current = holders[reference.to], let currentPosition = position[current.address],
               (currentPosition, current.path) <= (from, reference.path) {
                continue
            }
            holders[reference.to] = (reference.from, reference.path)
        }
        return holders
    }

    /// The id of an object only inspection reached: the one it had in the last snapshot, or
    /// a new one, declared now.
    private func discoveredID(
        _ node: HeapGraph.Node, seenBefore: [DiscoveredKey: TraceObjectID], seenNow: inout [DiscoveredKey: TraceObjectID],
        session: RecordingSession
    ) -> TraceObjectID {
        let full = withoutAddresses(node.typeName)
        let key = DiscoveredKey(address: node.address, typeName: full)
        if let id = seenBefore[key] {
            seenNow[key] = id
            return id
        }
        let id = session.registry.freshID()
        seenNow[key] = id
        session.declare(TraceObject(
            id: id, role: .object, typeName: full,
            shortTypeName: node.isCollection ? Self.withoutModules(full) : shortened(full),
            lifetimeTracked: false
        ))
        return id
    }

    private func kind(
        of node: HeapGraph.Node, id: TraceObjectID, role: TraceObjectRole?, roots: [TraceObjectID: String]
    ) -> TraceSnapshot.Node.Kind {
        if roots[id] != nil { return .root }
        if node.isCollection { return .collection }
        let short = shortened(node.typeName)
        if short == "AnyCancellable" { return .cancellable }
        if short == "PassthroughSubject" || short == "CurrentValueSubject" { return .subject }
        switch role {
        case .publisher?: return .publisher
        case .subscription?: return .subscription
        case .subscriber?: return .subscriber
        case .object?: return .object
        case nil: return Self.combineKind(of: withoutAddresses(node.typeName), short: short) ?? .object
        }
    }

    /// The kind of one of Combine's own objects that the recorder never met in a call (the
    /// conduit of a subscription made before recording started, whose requests it has not
    /// seen yet): Combine's machinery, not the program's object. `nil` for any other type.
    static func combineKind(of typeName: String, short: String) -> TraceSnapshot.Node.Kind? {
        guard let module = ["OpenCombine.", "Combine."].first(where: typeName.hasPrefix) else { return nil }
        if typeName.hasPrefix(module + "Subscribers.") { return .subscriber }
        if short == "Future" { return .publisher }
        return .subscription
    }

    private func ownership(_ ownership: ReferenceOwnership) -> TraceSnapshot.Ownership {
        switch ownership {
        case .strong: return .strong
        case .weak: return .weak
        case .unowned: return .unowned
        case .unownedUnsafe: return .unownedUnsafe
        }
    }

    /// Whether `typeName` is one of Lifeline's own types.
    static func isTracerType(_ typeName: String) -> Bool {
        ["Lifeline.", "LifelineLog.", "LifelineHeap."].contains { typeName.hasPrefix($0) }
    }

    /// `Swift.Set<OpenCombine.AnyCancellable>` becomes `Set<AnyCancellable>`: each qualified
    /// name keeps its last component, generic arguments stay.
    static func withoutModules(_ name: String) -> String {
        var result = ""
        var word = ""
        for character in name {
            if character == "." {
                word = ""
            } else if character.isLetter || character.isNumber || character == "_" {
                word.append(character)
            } else {
                result += word
                result.append(character)
                word = ""
            }
        }
        return result + word
    }
}
