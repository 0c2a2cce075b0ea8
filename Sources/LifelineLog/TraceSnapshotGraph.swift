/// A snapshot's graph as a persistent map from object ids to what the snapshot knows of each
/// node: the node, its outgoing edges, which snapshot last checked it, and who refers to it.
///
/// It is how a reader applies delta snapshots (``TraceSnapshotDelta/applied(to:)``) in time
/// proportional to what each delta changes rather than to what lives: a change copies only the
/// path to the nodes it touches (a 16-way trie keyed by id), and every other part is shared with
/// the snapshot it was made from. The arrays ``TraceSnapshot`` hands on are made from it the
/// first time they are asked for.
struct TraceSnapshotGraph: Sendable {
    /// What the graph knows of one node.
    final class Entry: Sendable {
        let node: TraceSnapshot.Node
        /// The ``TraceSnapshotGraph/generation`` of the graph that last checked the node, or
        /// `-1` when only the moment is known (a full line's `last_checked`).
        let checkedBy: Int
        /// The ``TraceSnapshot/seq`` of the snapshot that last checked the node.
        let checkedAt: UInt64
        /// The node's edges, unique, ordered as ``TraceSnapshot/edges`` orders them.
        let outgoing: [TraceSnapshot.Edge]
        /// How many edges each other node holds to this one.
        let incoming: [TraceObjectID: Int]

        init(node: TraceSnapshot.Node, checkedBy: Int, checkedAt: UInt64, outgoing: [TraceSnapshot.Edge], incoming: [TraceObjectID: Int]) {
            self.node = node
            self.checkedBy = checkedBy
            self.checkedAt = checkedAt
            self.outgoing = outgoing
            self.incoming = incoming
        }

        func with(
            node: TraceSnapshot.Node? = nil, checkedBy: Int? = nil, checkedAt: UInt64? = nil,
            outgoing: [TraceSnapshot.Edge]? = nil, incoming: [TraceObjectID: Int]? = nil
        ) -> Entry {
            Entry(
                node: node ?? self.node, checkedBy: checkedBy ?? self.checkedBy, checkedAt: checkedAt ?? self.checkedAt,
                outgoing: outgoing ?? self.outgoing, incoming: incoming ?? self.incoming
            )
        }
    }

    /// One level of the trie: 16 children, or at the bottom level 16 entries. A level is
    /// changed in place only while one graph alone holds it (while a delta is being applied, the
    /// levels it already copied); once shared, it is copied first.
    private final class Level: @unchecked Sendable {
        var children: [Level?]
        var entries: [Entry?]

        init(children: [Level?] = [], entries: [Entry?] = []) {
            self.children = children
            self.entries = entries
        }
    }

    private static let fanOut = 16
    private static let bitsPerLevel: UInt64 = 4

    private var root = Level()
    /// Levels below the root: the trie holds ids below 16^(height + 1).
    private var height = 0
    /// The number of entries.
    private(set) var count = 0
    /// Which graph this is among those made from one another: each change makes the next. An
    /// entry checked by this graph has it as ``Entry/checkedBy``.
    private(set) var generation = 0
    /// How many entries this graph did not check (``Entry/checkedBy`` is not ``generation``).
    private(set) var uncheckedCount = 0
    /// The number of edges.
    private(set) var edgeCount = 0

    /// The graph of a snapshot given whole, whose nodes it checked unless `lastChecked` says
    /// otherwise; `nil` when an edge names an object that is not a node.
    init?(nodes: [TraceSnapshot.Node], edges: [TraceSnapshot.Edge], lastChecked: [TraceObjectID: UInt64], seq: UInt64) {
        for node in nodes where self[node.id] == nil {
            let earlier = lastChecked[node.id]
            if earlier != nil { uncheckedCount += 1 }
            self[node.id] = Entry(node: node, checkedBy: earlier == nil ? generation : -1, checkedAt: earlier ?? seq, outgoing: [], incoming: [:])
        }
        for edge in edges {
            guard self[edge.from] != nil, self[edge.to] != nil else { return nil }
            insert(edge)
        }
    }

    subscript(id: TraceObjectID) -> Entry? {
        get {
            let key = id.rawValue
            guard key >> (Self.bitsPerLevel * UInt64(height + 1)) == 0 else { return nil }
            var level = root
            var shift = Self.bitsPerLevel * UInt64(height)
            while shift > 0 {
                let slot = Int((key >> shift) & 0xf)
                guard slot < level.children.count, let child = level.children[slot] else { return nil }
                level = child
                shift -= Self.bitsPerLevel
            }
            let slot = Int(key & 0xf)
            return slot < level.entries.count ? level.entries[slot] : nil
        }
        set {
            let key = id.rawValue
            while key >> (Self.bitsPerLevel * UInt64(height + 1)) != 0 {
                var children = [Level?](repeating: nil, count: Self.fanOut)
                children[0] = root
                root = Level(children: children)
                height += 1
            }
            count += Self.set(newValue, at: key, in: &root, shift: Self.bitsPerLevel * UInt64(height))
        }
    }

    /// Puts `entry` at `key` under `level`, copying the levels on the way that other graphs
    /// share; the change in the number of entries.
    private static func set(_ entry: Entry?, at key: UInt64, in level: inout Level, shift: UInt64) -> Int {
        if !isKnownUniquelyReferenced(&level) { level = Level(children: level.children, entries: level.entries) }
        let slot = Int((key >> shift) & 0xf)
        if shift == 0 {
            if level.entries.isEmpty { level.entries = [Entry?](repeating: nil, count: fanOut) }
            let change = (entry == nil ? 0 : 1) - (level.entries[slot] == nil ? 0 : 1)
            level.entries[slot] = entry
            return change
        }
        if level.children.isEmpty { level.children = [Level?](repeating: nil, count: fanOut) }
        var child = level.children[slot] ?? Level()
        level.children[slot] = nil
        let change = set(entry, at: key, in: &child, shift: shift - bitsPerLevel)
        level.children[slot] = child
        return change
    }

    /// Every entry, ordered by id.
    func forEach(_ body: (Entry) -> Void) {
        func visit(_ level: Level) {
            for child in level.children { if let child { visit(child) } }
            for entry in level.entries { if let entry { body(entry) } }
        }
        visit(root)
    }

    /// Whether `a` comes before `b` in ``TraceSnapshot/edges``.
    static func precedes(_ a: TraceSnapshot.Edge, _ b: TraceSnapshot.Edge) -> Bool {
        (a.from.rawValue, a.field, a.to.rawValue, a.ownership.rawValue) < (b.from.rawValue, b.field, b.to.rawValue, b.ownership.rawValue)
    }

    /// Where `edge` is or would go among `edges`, ordered and unique.
    private static func position(of edge: TraceSnapshot.Edge, in edges: [TraceSnapshot.Edge]) -> Int {
        var low = 0, high = edges.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(edges[middle], edge) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Adds `edge`, whose ends are entries, unless the graph has it.
    mutating func insert(_ edge: TraceSnapshot.Edge) {
        guard let source = self[edge.from] else { return }
        var outgoing = source.outgoing
        let position = Self.position(of: edge, in: outgoing)
        guard position == outgoing.count || outgoing[position] != edge else { return }
        outgoing.insert(edge, at: position)
        edgeCount += 1
        self[edge.from] = source.with(outgoing: outgoing)
        if let target = self[edge.to] {
            var incoming = target.incoming
            incoming[edge.from, default: 0] += 1
            self[edge.to] = target.with(incoming: incoming)
        }
    }

    /// Takes `edge` out; `false` when the graph does not have it.
    mutating func remove(_ edge: TraceSnapshot.Edge) -> Bool {
        guard let source = self[edge.from] else { return false }
        var outgoing = source.outgoing
        let position = Self.position(of: edge, in: outgoing)
        guard position < outgoing.count, outgoing[position] == edge else { return false }
        outgoing.remove(at: position)
        edgeCount -= 1
        self[edge.from] = source.with(outgoing: outgoing)
        if let target = self[edge.to] {
            var incoming = target.incoming
            incoming[edge.from] = incoming[edge.from].map { $0 - 1 }.flatMap { $0 > 0 ? $0 : nil }
            self[edge.to] = target.with(incoming: incoming)
        }
        return true
    }

    /// Takes the node `id` out with every edge from or to it; `false` when it is not a node.
    mutating func removeNode(_ id: TraceObjectID) -> Bool {
        guard let entry = self[id] else { return false }
        for edge in entry.outgoing where edge.to != id { _ = remove(edge) }
        for source in entry.incoming.keys where source != id {
            guard let holder = self[source] else { continue }
            for edge in holder.outgoing where edge.to == id { _ = remove(edge) }
        }
        if self[id]?.checkedBy != generation { uncheckedCount -= 1 }
        edgeCount -= self[id]?.outgoing.count ?? 0  // its references to itself
        self[id] = nil
        return true
    }

    /// The ids this graph checked since ``advance()``, in the order checked, possibly repeated;
    /// empty for the graph of a snapshot given whole.
    private(set) var checkedSinceAdvance: [TraceObjectID] = []

    /// Starts the next graph: what this one checked becomes what an earlier snapshot checked.
    mutating func advance() {
        generation += 1
        uncheckedCount = count
        checkedSinceAdvance = []
    }

    /// Marks `id` as checked by this graph, with `node` as found if given; `false` when `id` is
    /// not a node and no node is given.
    mutating func check(_ id: TraceObjectID, at seq: UInt64, node: TraceSnapshot.Node? = nil) -> Bool {
        if let entry = self[id] {
            if entry.checkedBy != generation { uncheckedCount -= 1 }
            self[id] = entry.with(node: node, checkedBy: generation, checkedAt: seq)
        } else {
            guard let node else { return false }
            self[id] = Entry(node: node, checkedBy: generation, checkedAt: seq, outgoing: [], incoming: [:])
        }
        checkedSinceAdvance.append(id)
        return true
    }

    /// The ids of the nodes that differ between this graph and `earlier`: those only one of
    /// them has, and those whose node (kind, name, counts, liveness) or outgoing edges differ.
    /// When checked again but found the same, a node is not among them. Ordered by id.
    ///
    /// The parts of the trie the two graphs share are skipped whole, so for a graph a delta made
    /// from `earlier` (or from a graph made from it) this costs what the deltas changed.
    func changedIDs(since earlier: TraceSnapshotGraph) -> [TraceObjectID] {
        let height = max(self.height, earlier.height)
        func lifted(_ graph: TraceSnapshotGraph) -> Level {
            var level = graph.root
            for _ in graph.height..<height {
                var children = [Level?](repeating: nil, count: Self.fanOut)
                children[0] = level
                level = Level(children: children)
            }
            return level
        }
        var changed: [TraceObjectID] = []
        func visit(_ later: Level?, _ earlier: Level?, depth: Int) {
            if later === earlier { return }
            for slot in 0..<Self.fanOut {
                if depth > 0 {
                    visit(Self.child(of: later, at: slot), Self.child(of: earlier, at: slot), depth: depth - 1)
                    continue
                }
                let new = Self.entry(of: later, at: slot), old = Self.entry(of: earlier, at: slot)
                if new === old { continue }
                if let new, let old, new.node == old.node, new.outgoing == old.outgoing { continue }
                if let id = new?.node.id ?? old?.node.id { changed.append(id) }
            }
        }
        visit(lifted(self), lifted(earlier), depth: height)
        return changed
    }

    private static func child(of level: Level?, at slot: Int) -> Level? {
        guard let level, slot < level.children.count else { return nil }
        return level.children[slot]
    }

    private static func entry(of level: Level?, at slot: Int) -> Entry? {
        guard let level, slot < level.entries.count else { return nil }
        return level.entries[slot]
    }

    /// The snapshot's nodes, edges and ``TraceSnapshot/lastChecked``, as arrays.
    func materialized() -> (nodes: [TraceSnapshot.Node], edges: [TraceSnapshot.Edge], lastChecked: [TraceObjectID: UInt64]) {
        var nodes: [TraceSnapshot.Node] = [], edges: [TraceSnapshot.Edge] = []
        var lastChecked: [TraceObjectID: UInt64] = [:]
        nodes.reserveCapacity(count)
        lastChecked.reserveCapacity(uncheckedCount)
        forEach { entry in
            nodes.append(entry.node)
            edges.append(contentsOf: entry.outgoing)
            if entry.checkedBy != generation { lastChecked[entry.node.id] = entry.checkedAt }
        }
        return (nodes, edges, lastChecked)
    }
}
