import Foundation
import Testing
@testable import LifelineLog

/// Delta snapshot lines: a delta applied to its base gives the snapshot it was made from, the
/// reader turns a log's deltas back into full snapshots, and a delta that does not fit its base
/// is an error naming the line and `base`.
@Suite struct TraceSnapshotDeltaTests {
    typealias Sample = TraceSnapshotTests

    /// The sample's retain-cycle snapshot, then the same graph after the cancellable was
    /// removed from the set and the sink's counts changed, as a per-call snapshot.
    static func twoSnapshots() -> (log: SampleLog, first: TraceSnapshot, second: TraceSnapshot) {
        let (log, snapshots) = Sample.logWithSnapshots()
        let first = snapshots[1]
        var nodes = first.nodes.filter { $0.id != Sample.cancellable }
        nodes = nodes.map { node in
            node.id == Sample.sink
                ? TraceSnapshot.Node(id: node.id, kind: node.kind, retainCounts: .init(strong: 2, weak: 0, unowned: 2), alive: true)
                : node
        }
        let edges = first.edges.filter { $0.from != Sample.cancellable && $0.to != Sample.cancellable && $0.field != "owner" }
            + [TraceSnapshot.Edge(from: Sample.viewModel, to: Sample.sink, field: "current", ownership: .weak)]
        let second = TraceSnapshot(index: 2, seq: 9, label: "after cancel @9", reason: .cancel, nodes: nodes, edges: edges)
        return (log, first, second)
    }

    /// The sample log with `first` in full and the delta to `second`, as lines.
    static func lines(first: TraceSnapshot, delta: TraceSnapshotDelta, log: SampleLog) -> [String] {
        var bytes = log.data(closed: false)
        TraceLineEncoder.withLine(for: first) { bytes.append(contentsOf: $0) }
        TraceLineEncoder.withLine(for: delta) { bytes.append(contentsOf: $0) }
        TraceLineEncoder.withEndLine(events: UInt64(log.events.count), dropped: 0) { bytes.append(contentsOf: $0) }
        return Sample.lines(bytes)
    }

    @Test func aDeltaAppliedToItsBaseGivesTheSnapshotItWasMadeFrom() throws {
        let (_, first, second) = Self.twoSnapshots()
        let delta = TraceSnapshotDelta(from: first, to: second)
        #expect(delta.base == 1)
        #expect(delta.removedNodes == [Sample.cancellable])
        #expect(delta.nodes.map(\.id) == [Sample.sink], "only the node whose counts changed")
        #expect(delta.edges.map(\.field) == ["current"])
        #expect(delta.removedEdges.map(\.field) == ["owner"], "the cancellable's edges go with it")
        #expect(try delta.applied(to: first) == second)
        #expect(try TraceSnapshotDelta(from: second, to: first).applied(to: second) == first)
    }

    @Test func theReaderTurnsDeltaLinesBackIntoFullSnapshots() throws {
        let (log, first, second) = Self.twoSnapshots()
        let lines = Self.lines(first: first, delta: TraceSnapshotDelta(from: first, to: second), log: log)
        let deltaLine = try #require(lines.first { $0.contains("\"base\":1") })
        #expect(deltaLine.utf8.count < lines.first { $0.contains("\"snapshot\":1") }!.utf8.count)
        let trace = try Sample.read(lines)
        #expect(trace.snapshots == [first, second])
        #expect(trace.damage.isEmpty)
    }

    @Test func whatAPerCallSnapshotDidNotCheckKeepsTheMomentItWasLastChecked() throws {
        let (log, first, second) = Self.twoSnapshots()
        // The second checked only the sink (whose counts changed) and the view model.
        let unchecked = second.nodes.map(\.id).filter { $0 != Sample.sink && $0 != Sample.viewModel }
        let partial = TraceSnapshot(
            index: 2, seq: second.seq, label: second.label, reason: second.reason, nodes: second.nodes, edges: second.edges,
            lastChecked: Dictionary(uniqueKeysWithValues: unchecked.map { ($0, first.seq) })
        )
        let delta = TraceSnapshotDelta(from: first, to: partial)
        #expect(delta.checked == [Sample.viewModel], "the sink is in `nodes`: checked too")
        #expect(try delta.applied(to: first) == partial)
        #expect(!partial.isComplete && partial.checked(Sample.sink) && !partial.checked(unchecked[0]))
        let lines = Self.lines(first: first, delta: delta, log: log)
        #expect(try Sample.read(lines).snapshots == [first, partial])

        // A third that checks nothing new keeps each node's earlier moment, not its base's.
        let third = TraceSnapshotDelta(
            index: 3, seq: partial.seq + 1, label: "after cancel @10", reason: .cancel, base: 2, nodes: [], removedNodes: [],
            edges: [], removedEdges: []
        )
        let applied = try third.applied(to: partial)
        #expect(applied.lastChecked[unchecked[0]] == first.seq)
        #expect(applied.lastChecked[Sample.sink] == partial.seq)

        // Written in full, a snapshot that did not check everything says so too.
        var bytes = log.data(closed: false)
        TraceLineEncoder.withLine(for: partial) { bytes.append(contentsOf: $0) }
        TraceLineEncoder.withEndLine(events: UInt64(log.events.count), dropped: 0) { bytes.append(contentsOf: $0) }
        #expect(try Sample.read(Sample.lines(bytes)).snapshots == [partial])
    }

    @Test func theDeltaLineMatchesTheDocumentedLayout() throws {
        let delta = TraceSnapshotDelta(
            index: 5, seq: 21, label: "after cancel @21", reason: .cancel, base: 4,
            nodes: [.init(id: TraceObjectID(5), kind: .root, name: "ViewModel", retainCounts: .init(strong: 1, weak: 1, unowned: 0), alive: true)],
            removedNodes: [TraceObjectID(7)], edges: [],
            removedEdges: [.init(from: TraceObjectID(5), to: TraceObjectID(12), field: "cancellables", ownership: .strong)]
        )
        let line = TraceLineEncoder.withLine(for: delta) { String(decoding: $0, as: UTF8.self) }
        #expect(line == """
            {"kind":"snapshot","snapshot":5,"at":21,"label":"after cancel @21","reason":"cancel","base":4,\
            "nodes":[{"id":5,"kind":"root","name":"ViewModel","strong":1,"weak":1,"unowned":0,"alive":true}],"edges":[],\
            "removed_nodes":[{"id":7}],"removed_edges":[{"from":5,"to":12,"field":"cancellables","ownership":"strong"}]}

            """)
    }

    /// Damage a delta line can carry, and what the error says.
    struct Damage: CustomTestStringConvertible, Sendable {
        let name: String
        let edit: @Sendable (String) -> String
        let field: String
        let reason: String
        var testDescription: String { name }
    }

    static let damages: [Damage] = [
        Damage(name: "a base that is not the snapshot before", edit: { $0.replacingOccurrences(of: "\"base\":1", with: "\"base\":7") },
               field: "base", reason: "names snapshot 7 as its base, but the snapshot line before it is snapshot 1"),
        Damage(name: "a removed node the base lacks", edit: { $0.replacingOccurrences(of: "\"removed_nodes\":[{\"id\":12}]", with: "\"removed_nodes\":[{\"id\":99}]") },
               field: "base", reason: "removes object 99, which its base snapshot does not have"),
        Damage(name: "a removed edge the base lacks", edit: { $0.replacingOccurrences(of: "\"field\":\"owner\"", with: "\"field\":\"gone\"") },
               field: "base", reason: "removes the edge 2 → 10 (gone), which its base snapshot does not have"),
        Damage(name: "an edge to an object that is no node", edit: { $0.replacingOccurrences(of: "\"to\":2,\"field\":\"current\"", with: "\"to\":12,\"field\":\"current\"") },
               field: "base", reason: "leaves an edge to object 12, which is not a node of the snapshot"),
        Damage(name: "a checked object that is no node", edit: { $0.replacingOccurrences(of: "\"checked\":[{\"id\":", with: "\"checked\":[{\"id\":99},{\"id\":") },
               field: "base", reason: "says it checked object 99, which is not a node of the snapshot"),
        Damage(name: "no list of removed edges", edit: { $0.replacingOccurrences(of: ",\"removed_edges\":", with: ",\"removed\":") },
               field: "removed_edges", reason: "is missing"),
    ]

    @Test(arguments: damages)
    func aDeltaThatDoesNotFitItsBaseIsAnErrorNamingLineAndField(damage: Damage) throws {
        let (log, first, second) = Self.twoSnapshots()
        var lines = Self.lines(first: first, delta: TraceSnapshotDelta(from: first, to: second), log: log)
        let index = try #require(lines.firstIndex { $0.contains("\"base\":1") })
        let damaged = damage.edit(lines[index])
        #expect(damaged != lines[index], "the damage applies")
        lines[index] = damaged
        #expect(throws: TraceReadError.badField(line: index + 1, field: damage.field, reason: damage.reason)) {
            try Sample.read(lines)
        }
    }

    @Test func aDeltaWithNoSnapshotBeforeItIsAnError() throws {
        let (log, first, second) = Self.twoSnapshots()
        var lines = Self.lines(first: first, delta: TraceSnapshotDelta(from: first, to: second), log: log)
        lines.removeAll { $0.contains("\"snapshot\":1,") }
        let index = try #require(lines.firstIndex { $0.contains("\"base\":1") })
        #expect(throws: TraceReadError.badField(
            line: index + 1, field: "base", reason: "names snapshot 1 as its base, but no snapshot line comes before it"
        )) { try Sample.read(lines) }
    }
}
