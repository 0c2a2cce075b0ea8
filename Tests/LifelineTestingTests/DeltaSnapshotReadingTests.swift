import Foundation
import Lifeline
import LifelineLog
import NewsReaderApp
import Testing

/// The reader applies a log's delta snapshot lines in time proportional to what they change
/// (``TraceSnapshotGraph``); what it hands on must be exactly what applying each delta to a
/// whole copy of the snapshot before gives: the rule docs/LogFormat.md states ("Delta
/// snapshots"), written out here over the lines themselves, independently of the reader.
@Suite("Reading delta snapshots", .serialized)
struct DeltaSnapshotReadingTests {
    @Test func theNewsReadersPerCallSnapshotsReadAsTheFormatDefinesThem() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("delta-reading-\(getpid()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Lifeline.start(writingTo: path, options: RecordingOptions(snapshots: .everyCall, logFormat: .jsonLines))
        let app = NewsReaderApp()
        #expect(app.run(), "the app's queues went quiet")
        app.tearDown()
        Lifeline.stop()

        let trace = try TraceReader.read(contentsOf: path)
        let expected = try Self.snapshotsAsDefined(inLinesOf: path)
        #expect(expected.filter { !$0.isComplete }.count > 20, "the app took per-call snapshots that did not check everything")
        #expect(trace.snapshots.count == expected.count)
        #expect(trace.snapshots.filter { $0.checkedIDs != nil }.count > 20, "per-call snapshots say what they checked")
        for (read, defined) in zip(trace.snapshots, expected) {
            #expect(read.index == defined.index && read.seq == defined.seq && read.label == defined.label && read.reason == defined.reason)
            #expect(read.nodes == defined.nodes, "snapshot \(defined.index)'s nodes")
            #expect(read.edges == defined.edges, "snapshot \(defined.index)'s edges")
            #expect(read.lastChecked == defined.lastChecked, "snapshot \(defined.index)'s lastChecked")
            #expect(read.isComplete == defined.lastChecked.isEmpty)
            for node in defined.nodes {
                #expect(read.node(node.id) == node)
                #expect(read.checked(node.id) == (defined.lastChecked[node.id] == nil))
            }
            if let checkedIDs = read.checkedIDs {
                #expect(checkedIDs == Set(defined.nodes.map(\.id).filter { defined.lastChecked[$0] == nil }), "snapshot \(defined.index)")
            }
            #expect(read == defined)
        }
    }

    /// Every snapshot of the log at `path` as the format defines it: a full line as written,
    /// a delta line applied to a whole copy of the snapshot before.
    static func snapshotsAsDefined(inLinesOf path: String) throws -> [TraceSnapshot] {
        var snapshots: [TraceSnapshot] = []
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for line in text.split(separator: "\n") where line.contains("\"kind\":\"snapshot\"") {
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let nodes = try objects(fields["nodes"]).map(node)
            let edges = try objects(fields["edges"]).map(edge)
            let index = try #require(fields["snapshot"] as? Int), seq = try #require(fields["at"] as? UInt64)
            let label = try #require(fields["label"] as? String)
            let reason = try choice(fields["reason"], of: TraceSnapshot.Reason.self)
            guard let base = fields["base"] as? Int else {
                var lastChecked: [TraceObjectID: UInt64] = [:]
                for entry in try objects(fields["last_checked"] ?? []) {
                    lastChecked[try id(entry["id"])] = try #require(entry["seq"] as? UInt64)
                }
                snapshots.append(TraceSnapshot(index: index, seq: seq, label: label, reason: reason, nodes: nodes, edges: edges, lastChecked: lastChecked))
                continue
            }
            let previous = try #require(snapshots.last)
            #expect(previous.index == base)
            // The base with the removed nodes and their edges, and the removed edges, taken out;
            // the line's nodes put in and its edges added. What the line does not list as
            // checked keeps the moment the base had, or the base's own when the base checked it.
            let removedNodes = Set(try objects(fields["removed_nodes"]).map { try id($0["id"]) })
            var byID = Dictionary(previous.nodes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for id in removedNodes { #expect(byID.removeValue(forKey: id) != nil) }
            for node in nodes { byID[node.id] = node }
            var allEdges = Set(previous.edges.filter { !removedNodes.contains($0.from) && !removedNodes.contains($0.to) })
            for removed in try objects(fields["removed_edges"]).map(edge) { #expect(allEdges.remove(removed) != nil) }
            allEdges.formUnion(edges)
            let checkedNow = Set(nodes.map(\.id)).union(try objects(fields["checked"] ?? []).map { try id($0["id"]) })
            var lastChecked: [TraceObjectID: UInt64] = [:]
            for id in byID.keys where !checkedNow.contains(id) {
                lastChecked[id] = previous.lastChecked[id] ?? previous.seq
            }
            snapshots.append(TraceSnapshot(
                index: index, seq: seq, label: label, reason: reason, nodes: Array(byID.values), edges: Array(allEdges), lastChecked: lastChecked
            ))
        }
        return snapshots
    }

    private static func objects(_ value: Any?) throws -> [[String: Any]] {
        try #require(value as? [[String: Any]])
    }

    private static func choice<Choice: RawRepresentable<String>>(_ value: Any?, of _: Choice.Type) throws -> Choice {
        let name = try #require(value as? String)
        return try #require(Choice(rawValue: name))
    }

    private static func id(_ value: Any?) throws -> TraceObjectID {
        TraceObjectID(try #require(value as? UInt64))
    }

    private static func node(_ fields: [String: Any]) throws -> TraceSnapshot.Node {
        var counts: TraceSnapshot.RetainCounts?
        if let strong = fields["strong"] as? Int {
            counts = TraceSnapshot.RetainCounts(
                strong: strong, weak: try #require(fields["weak"] as? Int), unowned: try #require(fields["unowned"] as? Int),
                recorderWeak: fields["recorder_weak"] as? Int ?? 0, recorderUnowned: fields["recorder_unowned"] as? Int ?? 0
            )
        }
        return TraceSnapshot.Node(
            id: try id(fields["id"]), kind: try choice(fields["kind"], of: TraceSnapshot.Node.Kind.self),
            name: fields["name"] as? String, retainCounts: counts, alive: try #require(fields["alive"] as? Bool),
            opaque: fields["opaque"] as? Bool ?? false
        )
    }

    private static func edge(_ fields: [String: Any]) throws -> TraceSnapshot.Edge {
        TraceSnapshot.Edge(
            from: try id(fields["from"]), to: try id(fields["to"]), field: try #require(fields["field"] as? String),
            ownership: try choice(fields["ownership"], of: TraceSnapshot.Ownership.self),
            closureSite: try fields["closure"].map { try #require($0 as? UInt64) }
        )
    }
}
