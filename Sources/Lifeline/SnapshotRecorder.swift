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
/// A per-call snapshot (after a subscribe, completion or cancel) costs what the call changed,
/// not what lives: it patches the last snapshot's graph (``SnapshotGraph``). It reads again the
/// fields of the objects of the events since the last snapshot (``touch(_:)``: objects declared,
/// called or found dead) and of the holders of objects that left the graph; it checks the memory
/// fingerprint of the next ``recheckStep`` objects in turn (which catches what the program
/// changes outside Combine's calls: a field it sets, a cancellable it stores in a set after
/// `sink` returned) and reads again those whose memory changed; and it follows whatever new
/// they reach. Every other object keeps the references and counts an earlier snapshot found. It
/// is written as what changed since the last snapshot, with the nodes it checked
/// (``TraceSnapshotDelta``). The stop snapshot and the snapshots the program asks for read
/// everything again, and are complete.
///
/// Two refinements keep one id per object:
/// - When the recorder later meets such an object in a call, or `Lifeline.track` names it,
///   the registry takes over the id the last snapshot gave it (``claim(address:typeName:)``).
/// - A collection is named by where it is stored: a `Set<AnyCancellable>` whose storage moved
///   when it grew keeps its id while the same holder stores it in the same field.
final class SnapshotRecorder: Sendable {
    private struct State {
        var taken = 0
        /// The last snapshot's graph, for the next per-call snapshot to patch.
        var graph: SnapshotGraph?
        /// The tracked roots' addresses when ``graph`` was read in full.
        var rootAddresses: [UInt] = []
        /// What the last snapshot did, for tests.
        var lastWork = Work()
        /// Set by ``compareReads()``.
        var comparison: ReadComparison?
        /// The last snapshot in full, while ``comparison`` is set.
        var lastSnapshot: TraceSnapshot?
        /// Roots by id, with their names, including roots that have died since.
        var rootNames: [TraceObjectID: String] = [:]
        /// Ids of the collections snapshots discovered, by holder and field.
        var collections: [CollectionKey: TraceObjectID] = [:]
        /// Ids of the global variables snapshots found holding objects, by address.
        var globals: [UInt: TraceObjectID] = [:]
    }

    /// What one snapshot did: how many objects it read the fields of, how many it only checked
    /// (the memory its references came from, and its counts), and how many memory reads (one
    /// system call each) that took, for tests.
    struct Work: Equatable {
        var read = 0
        var rechecked = 0
        var memoryReads: UInt64 = 0
    }

    /// How many objects a per-call snapshot checks in turn, besides those the call's events
    /// name: every object is checked at least once in so many per-call snapshots, however many
    /// objects live, and the cost of one does not grow with them.
    static let recheckStep = 32

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
        state.withLock { $0.lastWork.read }
    }

    /// What the last snapshot did, for tests.
    var lastWork: Work {
        state.withLock { $0.lastWork }
    }

    /// What ``compareReads()`` found.
    struct ReadComparison {
        /// Where a per-call snapshot's graph differed from a full read of the same moment, for
        /// the objects it checked: one line each, `after subscribe @12: missing Holder.field → Target`.
        /// Also where the delta it wrote, applied to the snapshot before, differs from the graph
        /// it kept.
        var differences: [String] = []
        /// Every snapshot written since, in full.
        var snapshots: [TraceSnapshot] = []
    }

    /// From now on, each per-call snapshot also reads everything and notes where the two graphs
    /// differ for the objects it checked, and every snapshot is kept in full, for tests.
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
            let touchedIDs = touched.withLock { touched in
                defer { touched.removeAll() }
                return touched
            }
            state.taken += 1
            if [.subscribe, .completion, .cancel].contains(reason), state.graph != nil, state.rootAddresses == rootAddresses {
                takePerCall(&state, label: label, reason: reason, seq: seq, touched: touchedIDs, session: session)
            } else {
                takeComplete(&state, label: label, reason: reason, seq: seq, rootAddresses: rootAddresses, session: session)
            }
        }
    }

    /// Reads every object the recorder knows and every root, and writes the snapshot in full.
    private func takeComplete(
        _ state: inout State, label: String, reason: TraceSnapshot.Reason, seq: UInt64, rootAddresses: [UInt],
        session: RecordingSession
    ) {
        let known = session.registry.liveAddresses()
        // Lifeline's own objects (the hook bridge a subscription tap holds, the session
        // behind it) are not the program's, unless the registry knows them (proxies).
        let knownInIDOrder = known.sorted { $0.value.id < $1.value.id }.map(\.key)
        let starts = rootAddresses + knownInIDOrder
        let excluding = { (address: UInt, typeName: String) in known[address] == nil && Self.isTracerType(typeName) }
        let readsBefore = HeapInspector.memoryReadCount
        let graph = inspector.inspect(roots: starts, excluding: excluding)
        state.lastWork = Work(read: graph.readCount, rechecked: 0, memoryReads: HeapInspector.memoryReadCount - readsBefore)

        // The recorder's own weak references: the registry's to each object it knows, where it
        // holds them weakly, and one to each tracked root.
        var recorderWeak: [UInt: Int] = [:]
        for (address, entry) in known { recorderWeak[address, default: 0] += entry.recorderReferences.weak }
        for address in rootAddresses { recorderWeak[address, default: 0] += 1 }

        var ids: [UInt: TraceObjectID] = [:]
        var nodes: [TraceSnapshot.Node] = []
        let seenBefore = discovered.withLock { $0 }
        var seenNow: [DiscoveredKey: TraceObjectID] = [:]
        var collections: [CollectionKey: TraceObjectID] = [:]
        let order = Self.discoveryOrder(of: graph, from: starts)
        let holders = Self.firstHolders(in: graph, order: order)
        let rootNames = state.rootNames
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
            nodes.append(describe(node, id: id, entry: entry, recorderWeak: recorderWeak[node.address] ?? 0, roots: rootNames))
        }
        let held = globalHolders(
            of: graph, excluding: excluding, state: &state, ids: &ids, seenBefore: seenBefore, seenNow: &seenNow, session: session
        )
        nodes += held.nodes
        discovered.withLock { $0 = seenNow }
        state.collections = collections
        // An object the recorder knows is alive is in the snapshot even when inspection could
        // not read it (a type it cannot validate): shown alive, without counts or edges.
        for (address, entry) in known where ids[address] == nil {
            ids[address] = entry.id
            nodes.append(TraceSnapshot.Node(
                id: entry.id, kind: Self.unreadableKind(entry, roots: rootNames), name: rootNames[entry.id], retainCounts: nil,
                alive: true
            ))
        }
        let liveIDs = Set(known.values.map(\.id))
        for (id, name) in rootNames.sorted(by: { $0.key < $1.key }) where !liveIDs.contains(id) && !ids.values.contains(id) {
            nodes.append(TraceSnapshot.Node(id: id, kind: .root, name: name, retainCounts: nil, alive: false))
        }
        let edges = graph.references.compactMap { reference -> TraceSnapshot.Edge? in
            guard let from = ids[reference.from], let to = ids[reference.to] else { return nil }
            return TraceSnapshot.Edge(reference, from: from, to: to, closureSite: session.callSites.closureSite(function:))
        } + held.edges
        // Two addresses can come to one id (an object the registry took over from an
        // earlier snapshot, while another object sits where the snapshot saw it): one node
        // each, the first; their edges once.
        var nodeIDs = Set<TraceObjectID>(), uniqueEdges = Set<TraceSnapshot.Edge>()
        let snapshot = TraceSnapshot(
            index: state.taken, seq: seq, label: label, reason: reason, nodes: nodes.filter { nodeIDs.insert($0.id).inserted },
            edges: edges.filter { uniqueEdges.insert($0).inserted }
        )
        session.write(snapshot)
        state.rootAddresses = rootAddresses
        state.graph = SnapshotGraph(
            graph: graph, ids: ids, snapshot: snapshot, known: known, rootAddresses: rootAddresses, order: order,
            closureSite: session.callSites.closureSite(function:),
            describe: { [unowned self] node, id, entry, recorderWeak in
                describe(node, id: id, entry: entry, recorderWeak: recorderWeak, roots: rootNames)
            }
        )
        if state.comparison != nil {
            state.lastSnapshot = snapshot
            state.comparison?.snapshots.append(snapshot)
        }
    }

    /// The program's global and static variables that hold objects of `graph`, directly or
    /// through objects outside it (``HeapInspector/inspectGlobals(_:reaching:objectLimit:excluding:)``):
    /// a node for each such variable, one for each object between (named as any object only
    /// inspection reached), and their edges. A variable keeps its id for the whole recording.
    private func globalHolders(
        of graph: HeapGraph, excluding: (UInt, String) -> Bool, state: inout State, ids: inout [UInt: TraceObjectID],
        seenBefore: [DiscoveredKey: TraceObjectID], seenNow: inout [DiscoveredKey: TraceObjectID], session: RecordingSession
    ) -> (nodes: [TraceSnapshot.Node], edges: [TraceSnapshot.Edge]) {
        let variables = ProgramGlobals.variables(excluding: Self.tracerModules.contains)
        let found = inspector.inspectGlobals(variables, reaching: graph.nodes.mapValues(\.typeName), excluding: excluding)
        var nodes: [TraceSnapshot.Node] = []
        // The order runs on into the graph's own objects, which have their ids already.
        for address in Self.discoveryOrder(of: found.objects, from: found.holdings.map(\.object)) {
            guard let node = found.objects.nodes[address] else { continue }
            let id = discoveredID(node, seenBefore: seenBefore, seenNow: &seenNow, session: session)
            ids[address] = id
            nodes.append(describe(node, id: id, entry: nil, recorderWeak: 0, roots: state.rootNames))
        }
        var edges: [TraceSnapshot.Edge] = []
        for holding in found.holdings {
            guard let to = ids[holding.object] else { continue }
            let variable = holding.variable
            let id = state.globals[variable.address] ?? {
                let id = session.registry.freshID()
                session.declare(TraceObject(
                    id: id, role: .object, typeName: variable.qualifiedName, shortTypeName: variable.declaration, lifetimeTracked: false
                ))
                state.globals[variable.address] = id
                return id
            }()
            if !nodes.contains(where: { $0.id == id }) {
                nodes.append(TraceSnapshot.Node(id: id, kind: .global, name: variable.declaration, retainCounts: nil, alive: true))
            }
            let field = holding.offset == 0 ? "" : "+\(holding.offset)"
            edges.append(TraceSnapshot.Edge(from: id, to: to, field: field, ownership: .strong))
        }
        edges += found.objects.references.compactMap { reference in
            guard let from = ids[reference.from], let to = ids[reference.to] else { return nil }
            return TraceSnapshot.Edge(reference, from: from, to: to, closureSite: session.callSites.closureSite(function:))
        }
        return (nodes, edges)
    }

    /// Patches the last snapshot's graph with what changed since, and writes what changed.
    ///
    /// It reads again the fields of the objects the events since the last snapshot name (the
    /// recorder's objects that were declared, called or died), and of the holders of objects
    /// that left the graph; it checks the memory of the next ``recheckStep`` objects in turn
    /// and reads again those whose memory changed; and it follows what the objects read reach
    /// that the graph does not hold yet. What no longer has a holder in the graph leaves it.
    private func takePerCall(
        _ state: inout State, label: String, reason: TraceSnapshot.Reason, seq: UInt64, touched: Set<TraceObjectID>,
        session: RecordingSession
    ) {
        guard var graph = state.graph else { return }
        state.graph = nil
        graph.beginSnapshot()
        var work = Work()
        let readsBefore = HeapInspector.memoryReadCount
        let rootNames = state.rootNames

        // The recorder's objects the events named, and those of the objects checked in turn.
        let turn = graph.nextToRecheck(Self.recheckStep)
        var askRegistry = touched
        for address in turn { if let id = graph.known[address]?.id { askRegistry.insert(id) } }
        let live = session.registry.liveAddresses(of: askRegistry)
        var toRead = Set<UInt>()
        var removed: [UInt] = []
        for id in askRegistry.sorted() {
            if let (address, entry) = live[id] {
                if graph.known[address]?.id != id {
                    graph.setKnown(entry, at: address)
                    toRead.insert(address)
                }
                if touched.contains(id) { toRead.insert(address) }
            } else if let address = graph.address(of: id), graph.known[address]?.id == id {
                // One of the recorder's objects that died, and what only it held: a subscription's
                // copy of an array leaves with the subscription, rather than staying as found
                // before until an object of its type happens to be allocated at its address.
                graph.setKnown(nil, at: address)
                if let entry = graph.entries[address] {
                    graph.remove(address)
                    removed.append(address)
                    removed += graph.removeUnreferenced(from: entry.references.map(\.to))
                }
            }
        }

        // The objects checked in turn: read again when their memory changed, or the memory of
        // a collection they hold (part of their value).
        let rechecked = turn.filter { graph.entries[$0] != nil && !toRead.contains($0) }
        var ownedCollections: [UInt: [UInt]] = [:]
        var regions: [UInt: [Range<UInt>]] = [:]
        for address in rechecked {
            var pending = [address]
            while let next = pending.popLast() {
                guard let entry = graph.entries[next], regions[next] == nil else { continue }
                regions[next] = entry.regions
                let collections = entry.references.map(\.to).filter { graph.entries[$0]?.node.isCollection == true }
                ownedCollections[address, default: []] += collections
                pending += collections
            }
        }
        work.rechecked = regions.count
        let rechecks = inspector.recheck(regions)
        func isUnchanged(_ address: UInt) -> Bool {
            guard let recheck = rechecks[address], !recheck.isDeiniting, let fingerprint = recheck.fingerprint else { return false }
            return fingerprint == graph.entries[address]?.fingerprint
        }
        for address in rechecked {
            let owned = ownedCollections[address] ?? []
            guard isUnchanged(address), owned.allSatisfy(isUnchanged) else {
                toRead.insert(address)
                continue
            }
            for checked in [address] + owned { graph.confirm(checked, counts: rechecks[checked]?.counts) }
        }

        // Reading, until no holder of an object that left the graph is left unread.
        var round = 0
        while !toRead.isEmpty || !removed.isEmpty, round < 8 {
            round += 1
            for address in removed {
                for holder in graph.holders(of: address) where graph.entries[holder] != nil { toRead.insert(holder) }
            }
            removed = []
            // A collection is part of its holder's value, read with it: its holders are read.
            var collections = toRead.filter { graph.entries[$0]?.node.isCollection == true }
            while let collection = collections.popFirst() {
                toRead.remove(collection)
                for holder in graph.holders(of: collection) where graph.entries[holder] != nil && toRead.insert(holder).inserted {
                    if graph.entries[holder]?.node.isCollection == true { collections.insert(holder) }
                }
            }
            if toRead.isEmpty { break }
            let reading = toRead
            toRead = []
            let starts = reading.map { address in
                (id: graph.entries[address]?.id ?? graph.known[address]?.id ?? TraceObjectID(UInt64.max), address: address)
            }.sorted { ($0.id, $0.address) < ($1.id, $1.address) }.map(\.address)
            let fresh = read(starts, in: graph)
            work.read += fresh.readCount
            removed = apply(fresh, reading: reading, starts: starts, to: &graph, state: &state, session: session, roots: rootNames)
        }
        work.memoryReads = HeapInspector.memoryReadCount - readsBefore
        state.lastWork = work
        forgetDiscovered(graph.departed.filter { graph.entries[$0.address]?.id != $0.id })

        let delta = graph.delta(index: state.taken, seq: seq, label: label, reason: reason, base: state.taken - 1)
        session.write(delta)
        if state.comparison != nil { compare(graph, delta: delta, label: label, state: &state, session: session) }
        state.graph = graph
    }

    /// Puts what one reading found into the graph: the objects it read with their references
    /// now, the new objects they reach (named as a complete snapshot names them), and takes out
    /// what no longer is an object or no longer has a holder. Returns the addresses taken out.
    private func apply(
        _ fresh: HeapGraph, reading: Set<UInt>, starts: [UInt], to graph: inout SnapshotGraph, state: inout State,
        session: RecordingSession, roots: [TraceObjectID: String]
    ) -> [UInt] {
        var removed: [UInt] = []
        var referencesByHolder: [UInt: [HeapGraph.Reference]] = [:]
        for reference in fresh.references { referencesByHolder[reference.from, default: []].append(reference) }
        // What was read and is no longer an object (or no longer one the walk reads).
        for address in reading.sorted() where !fresh.wasRead(address) {
            if graph.entries[address] != nil {
                let before = graph.entries[address]!.references.map(\.to)
                graph.remove(address)
                removed.append(address)
                removed += graph.removeUnreferenced(from: before)
            }
            if let entry = graph.known[address] {
                graph.markUnreadable(entry, at: address, kind: Self.unreadableKind(entry, roots: roots))
            }
        }
        // The objects read again, before the new ones get their ids: a collection that moved
        // takes over the id of the one its holder held before.
        let discovery = Self.discoveryOrder(of: fresh, from: starts)
        let order = discovery.filter { fresh.wasRead($0) }
        var oldTargets: [UInt] = []
        var newObjects: [UInt] = []
        for address in order {
            guard let node = fresh.nodes[address] else { continue }
            let sameObject = graph.entries[address].map { entry in
                graph.known[address].map { $0.id == entry.id } ?? (entry.node.typeName == node.typeName)
            } ?? false
            guard sameObject, let entry = graph.entries[address] else {
                newObjects.append(address)
                continue
            }
            oldTargets += entry.references.map(\.to)
            graph.put(node, id: entry.id, references: referencesByHolder[address] ?? [], regions: fresh.regions(of: address),
                      fingerprint: fresh.fingerprint(of: address))
        }
        let holders = Self.firstHolders(in: fresh, order: discovery)
        for address in newObjects {
            guard let node = fresh.nodes[address] else { continue }
            let id = newID(for: node, known: graph.known[address], holder: holders[address], graph: &graph, state: &state, session: session)
            if let earlier = graph.address(of: id), earlier != address, graph.entries[earlier] != nil {
                // The collection this one replaces.
                oldTargets += graph.entries[earlier]!.references.map(\.to)
                graph.remove(earlier)
                removed.append(earlier)
            }
            graph.put(node, id: id, references: referencesByHolder[address] ?? [], regions: fresh.regions(of: address),
                      fingerprint: fresh.fingerprint(of: address))
        }
        removed += graph.removeUnreferenced(from: oldTargets)
        return removed
    }

    /// The id of an object a per-call snapshot finds that the graph did not hold: the
    /// recorder's, or a collection's earlier id when its holder stores it in the same field, or
    /// a new one.
    private func newID(
        for node: HeapGraph.Node, known: ObjectRegistry.LiveEntry?, holder: (address: UInt, path: String)?,
        graph: inout SnapshotGraph, state: inout State, session: RecordingSession
    ) -> TraceObjectID {
        if let known { return known.id }
        let full = withoutAddresses(node.typeName)
        var key: CollectionKey?
        if node.isCollection, let holder, let holderID = graph.entries[holder.address]?.id {
            key = CollectionKey(holder: holderID, field: holder.path, typeName: full)
            // The collection its holder held in that field before, when nothing else in the
            // graph holds that one now: the same collection, whose storage moved.
            if let key, let earlier = state.collections[key] {
                let earlierAddress = graph.address(of: earlier)
                let isReplaced = earlierAddress.map { address in
                    graph.entries[address] != nil && graph.known[address] == nil
                        && graph.holders(of: address).allSatisfy { graph.entries[$0] == nil || $0 == address }
                } ?? true
                if isReplaced {
                    discovered.withLock { $0[DiscoveredKey(address: node.address, typeName: full)] = earlier }
                    return earlier
                }
            }
        }
        var seenNow: [DiscoveredKey: TraceObjectID] = [:]
        let id = discoveredID(node, seenBefore: [:], seenNow: &seenNow, session: session)
        discovered.withLock { $0.merge(seenNow) { _, new in new } }
        if let key { state.collections[key] = id }
        return id
    }

    /// Reads the objects at `starts` and what they reach that `graph` does not hold (of what it
    /// holds, only the counts). What the walk's closures hold of the graph is let go when this
    /// returns, before the caller changes the graph (which would otherwise copy its tables).
    private func read(_ starts: [UInt], in graph: SnapshotGraph) -> HeapGraph {
        let reading = Set(starts)
        return inspector.inspect(
            roots: starts,
            known: { address in reading.contains(address) ? nil : graph.entries[address]?.node.typeName },
            excluding: { address, typeName in graph.known[address] == nil && Self.isTracerType(typeName) }
        )
    }

    /// Forgets the ids the graph gave objects only inspection reached that left it: an object
    /// found at the same address later gets a new one.
    private func forgetDiscovered(_ departed: [SnapshotGraph.Departure]) {
        guard !departed.isEmpty else { return }
        let keys = departed.map { (key: DiscoveredKey(address: $0.address, typeName: withoutAddresses($0.typeName)), id: $0.id) }
        discovered.withLock { discovered in
            for (key, id) in keys where discovered[key] == id { discovered[key] = nil }
        }
    }

    /// For tests: the per-call snapshot's graph against a full read of the same moment, for
    /// the objects it checked, and the delta it wrote against the graph it kept.
    private func compare(_ graph: SnapshotGraph, delta: TraceSnapshotDelta, label: String, state: inout State, session: RecordingSession) {
        let starts = state.rootAddresses + graph.known.keys.sorted()
        let known = graph.known
        let full = inspector.inspect(roots: starts, excluding: { address, typeName in known[address] == nil && Self.isTracerType(typeName) })
        let checkedAddresses = Set(graph.entries.filter { graph.checked.contains($0.value.id) }.keys)
        let kept = graph.addressGraph
        state.comparison?.differences += (Self.differences(between: kept, and: full, at: checkedAddresses, starts: Set(starts))
            + Self.unreachable(in: kept, from: starts)).map { "\(label): \($0)" }
        guard let last = state.lastSnapshot else { return }
        do {
            let applied = try delta.applied(to: last)
            let kept = graph.nodesAndEdges
            let appliedNodes = Set(applied.nodes), keptNodes = Set(kept.nodes), appliedEdges = Set(applied.edges)
            if appliedNodes != keptNodes || appliedEdges != kept.edges {
                state.comparison?.differences.append(
                    "\(label): the delta does not give the graph kept: nodes \(appliedNodes.subtracting(keptNodes).map(\.id.rawValue)) "
                        + "against \(keptNodes.subtracting(appliedNodes).map(\.id.rawValue)), edges "
                        + "\(appliedEdges.subtracting(kept.edges).map { "\($0.from.rawValue)→\($0.to.rawValue) \($0.field)" }) against "
                        + "\(kept.edges.subtracting(appliedEdges).map { "\($0.from.rawValue)→\($0.to.rawValue) \($0.field) added \(delta.edges.contains($0)) removed \(delta.removedEdges.contains($0)) gone \(delta.removedNodes.contains($0.from) || delta.removedNodes.contains($0.to)) inlast \(last.edges.contains($0))" })"
                )
            }
            state.lastSnapshot = applied
            state.comparison?.snapshots.append(applied)
        } catch {
            state.comparison?.differences.append("\(label): the delta does not apply: \(error)")
        }
    }

    /// Where `graph` differs from `full`, the same moment read in full, for the objects at
    /// `addresses`: their nodes, and the references they hold.
    private static func differences(
        between graph: HeapGraph, and full: HeapGraph, at addresses: Set<UInt>, starts: Set<UInt>
    ) -> [String] {
        func name(_ address: UInt) -> String {
            (full.nodes[address] ?? graph.nodes[address]).map { TypeName.removingAddresses(from: $0.typeName) } ?? "?"
        }
        func text(_ reference: HeapGraph.Reference) -> String {
            "\(name(reference.from)).\(reference.path) → \(name(reference.to))"
        }
        var differences: [String] = []
        for address in addresses {
            guard let node = graph.nodes[address] else { continue }
            guard let fullNode = full.nodes[address] else {
                // An object only inspection reached that nothing reaches now is gone from a full
                // read; one whose holders the snapshot checked shows as their extra reference.
                if starts.contains(address) { differences.append("extra \(name(address))") }
                continue
            }
            if node != fullNode { differences.append("differs \(name(address))") }
        }
        let references = Set(graph.references.filter { addresses.contains($0.from) })
        let fullReferences = Set(full.references.filter { addresses.contains($0.from) && graph.nodes[$0.from] != nil })
        for reference in fullReferences where !references.contains(reference) { differences.append("missing \(text(reference))") }
        for reference in references where !fullReferences.contains(reference) && full.nodes[reference.from] != nil {
            differences.append("extra \(text(reference))")
        }
        return differences.sorted()
    }

    /// The objects of `graph` that none of `starts` reaches through its references: ones a
    /// per-call snapshot kept after everything that held them left it. A full read never finds
    /// them, checked or not.
    private static func unreachable(in graph: HeapGraph, from starts: [UInt]) -> [String] {
        var referencesByHolder: [UInt: [UInt]] = [:]
        for reference in graph.references { referencesByHolder[reference.from, default: []].append(reference.to) }
        var reached = Set<UInt>()
        var pending = starts.filter { graph.nodes[$0] != nil }
        while let address = pending.popLast() {
            guard reached.insert(address).inserted else { continue }
            pending += referencesByHolder[address] ?? []
        }
        return graph.nodes.values.filter { !reached.contains($0.address) }
            .map { "unreachable \(TypeName.removingAddresses(from: $0.typeName))" }.sorted()
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

    /// The node for the object `node`, named `id`.
    private func describe(
        _ node: HeapGraph.Node, id: TraceObjectID, entry: ObjectRegistry.LiveEntry?, recorderWeak: Int,
        roots: [TraceObjectID: String]
    ) -> TraceSnapshot.Node {
        TraceSnapshot.Node(
            id: id, kind: kind(of: node, id: id, role: entry?.role, roots: roots), name: roots[id],
            retainCounts: node.counts.map {
                TraceSnapshot.RetainCounts(
                    strong: $0.strong, weak: $0.weak, unowned: $0.unowned, recorderWeak: recorderWeak,
                    recorderUnowned: entry?.recorderReferences.unowned ?? 0
                )
            },
            alive: true, opaque: node.isOpaque
        )
    }

    /// The kind of a known object inspection could not read.
    private static func unreadableKind(_ entry: ObjectRegistry.LiveEntry, roots: [TraceObjectID: String]) -> TraceSnapshot.Node.Kind {
        switch (roots[entry.id], entry.role) {
        case (_?, _): .root
        case (nil, .publisher): .publisher
        case (nil, .subscription): .subscription
        case (nil, .subscriber): .subscriber
        case (nil, .object): .object
        }
    }

    /// The id of an object only inspection reached: the recorder's, when it met the object on
    /// another thread after the snapshot read which objects it knows; the one it had in the
    /// last snapshot; or a new one, declared now.
    private func discoveredID(
        _ node: HeapGraph.Node, seenBefore: [DiscoveredKey: TraceObjectID], seenNow: inout [DiscoveredKey: TraceObjectID],
        session: RecordingSession
    ) -> TraceObjectID {
        if let id = session.registry.liveID(at: node.address) { return id }
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
        if node.typeName == HeapGraph.taskTypeName { return .task }
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

    /// Whether `typeName` is one of Lifeline's own types.
    static func isTracerType(_ typeName: String) -> Bool {
        ["Lifeline.", "LifelineLog.", "LifelineHeap."].contains { typeName.hasPrefix($0) }
    }

    /// Lifeline's own modules, whose global variables are the recorder's, not the program's.
    static let tracerModules: Set<String> = [
        "Lifeline", "LifelineLog", "LifelineHeap", "LifelineAnalysis", "LifelineRender", "LifelineGraphviz", "LifelineTesting",
    ]

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
