import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import LifelineGraphviz
import LifelineLog
import LifelineRender
import Testing

/// The DOT of a hand-built snapshot: a view model in a loop with its sink's AnyCancellable, a
/// subject and conduit, a weakly held second view model, and a dead subscription.
@Suite struct OwnershipDOTRendererTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("__Snapshots__")

    static func trace() -> Trace {
        let declared: [(UInt64, TraceObjectRole, String)] = [
            (1, .subscriber, "Sink"), (2, .publisher, "PassthroughSubject"), (3, .subscription, "PassthroughSubject.Conduit"),
            (4, .object, "ProfileViewModel"), (5, .object, "AnyCancellable"), (6, .object, "Set<AnyCancellable>"),
            (7, .object, "Weird \"<name>\"\n{x}\\"), (8, .subscription, "Subscription"),
        ]
        let objects = Dictionary(uniqueKeysWithValues: declared.map { raw, role, name in
            (TraceObjectID(raw), TraceObject(id: TraceObjectID(raw), role: role, typeName: "App.\(name)", shortTypeName: name, lifetimeTracked: true))
        })
        let id = { (raw: UInt64) in TraceObjectID(raw) }
        let counts = TraceSnapshot.RetainCounts(strong: 2, weak: 1, unowned: 0)
        let snapshot = TraceSnapshot(
            index: 3, seq: 12, label: "stop \"now\"", reason: .stop,
            nodes: [
                .init(id: id(1), kind: .subscriber, retainCounts: counts, alive: true),
                .init(id: id(2), kind: .subject, retainCounts: counts, alive: true),
                .init(id: id(3), kind: .subscription, retainCounts: counts, alive: true),
                .init(id: id(4), kind: .root, name: "ViewModel", retainCounts: counts, alive: true),
                .init(id: id(5), kind: .cancellable, retainCounts: counts, alive: true),
                .init(id: id(6), kind: .collection, retainCounts: nil, alive: true),
                .init(id: id(7), kind: .object, retainCounts: .init(strong: 1, weak: 0, unowned: 0), alive: true),
                .init(id: id(8), kind: .subscription, retainCounts: nil, alive: false),
            ],
            edges: [
                .init(from: id(4), to: id(6), field: "cancellables", ownership: .strong),
                .init(from: id(6), to: id(5), field: "[0]", ownership: .strong),
                .init(from: id(5), to: id(1), field: "_cancel (closure)", ownership: .strong),
                .init(from: id(1), to: id(4), field: "receiveValue (closure)", ownership: .strong),
                .init(from: id(1), to: id(3), field: "status.subscribed.subscription", ownership: .strong),
                .init(from: id(3), to: id(1), field: "downstream.subscriber", ownership: .strong),
                .init(from: id(3), to: id(2), field: "parent", ownership: .strong),
                .init(from: id(2), to: id(3), field: "downstreams.single", ownership: .strong),
                .init(from: id(7), to: id(4), field: "owner \"weak\"", ownership: .weak),
                .init(from: id(7), to: id(2), field: "subject", ownership: .unowned),
            ]
        )
        return Trace(
            header: TraceHeader(processID: 1, processName: "test", startedAt: "2026-11-23T08:00:00Z", clockOrigin: 0,
                                valueDescriptionLimit: nil),
            objects: objects, threads: [:], queues: [:], events: [], snapshots: [snapshot], damage: []
        )
    }

    /// Where the program made an object is the second line of its node, a line break in
    /// the label, not the two characters `\n`.
    @Test func theCallSiteIsALineOfItsOwn() {
        let base = Self.trace()
        let sink = TraceObjectID(1)
        var objects = base.objects
        objects[sink] = TraceObject(
            id: sink, role: .subscriber, typeName: "App.Sink", shortTypeName: "Sink", sourceLocation: TraceSourceLocation(fileAndLine: "Feed.swift:12"),
            lifetimeTracked: true
        )
        let trace = Trace(header: base.header, objects: objects, threads: [:], queues: [:], events: [], snapshots: base.snapshots, damage: [])
        let dot = OwnershipDOTRenderer.render(trace.snapshots[0], in: trace)
        #expect(dot.contains(#"label="Sink #1\nFeed.swift:12\nstrong"#), "\(dot)")
        #expect(!dot.contains(#"Sink #1\\nFeed"#))
    }

    /// A per-call snapshot that took an object from an earlier snapshot draws it saying so, and
    /// its caption says what that means; a complete snapshot says neither.
    @Test func anObjectAPerCallSnapshotDidNotCheckSaysWhichSnapshotFoundIt() {
        let base = Self.trace()
        let complete = base.snapshots[0]
        let perCall = TraceSnapshot(
            index: 4, seq: 20, label: "after subscribe @20", reason: .subscribe, nodes: complete.nodes, edges: complete.edges,
            lastChecked: [TraceObjectID(4): 12]
        )
        let trace = Trace(header: base.header, objects: base.objects, threads: [:], queues: [:], events: [], snapshots: [complete, perCall], damage: [])
        let dot = OwnershipDOTRenderer.render(perCall, in: trace)
        let nodeLines = dot.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("\"o") && !$0.contains("->") }
        let marked = nodeLines.filter { $0.contains("as found after @12") }
        #expect(marked.count == 1 && marked[0].hasPrefix("\"o4\" "), "\(dot)")
        #expect(!nodeLines.contains { $0.contains("as found after") && !$0.hasPrefix("\"o4\" ") })
        // The loop through the view model is drawn, but not as a retain cycle: this snapshot
        // did not check the view model's references, and `retain-cycle` does not report it.
        #expect(!dot.contains("penwidth"), "\(dot)")
        #expect(dot.contains("was not checked by this snapshot"))
        let completeDOT = OwnershipDOTRenderer.render(complete, in: trace)
        #expect(!completeDOT.contains("as found after"))
    }

    @Test func theDOTMatchesItsGoldenFile() throws {
        let trace = Self.trace()
        let dot = OwnershipDOTRenderer.render(trace.snapshots[0], in: trace)
        let url = Self.directory.appendingPathComponent("ownership.dot")
        if ProcessInfo.processInfo.environment["LIFELINE_RECORD_SNAPSHOTS"] == "1" {
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            try dot.write(to: url, atomically: true, encoding: .utf8)
            Issue.record("Recorded \(url.lastPathComponent): review it, then run again without LIFELINE_RECORD_SNAPSHOTS.")
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(dot == expected, "Re-record with LIFELINE_RECORD_SNAPSHOTS=1 swift test --filter OwnershipDOTRendererTests and review the file.")
    }

    @Test func theLoopIsInTheWarningColourAndTheConduitLoopIsNot() {
        let trace = Self.trace()
        let graph = OwnershipDOTRenderer.graph(trace.snapshots[0], in: trace)
        let red = graph.edges.filter { $0.attributes.contains(.color(.red)) }.map { "\($0.from)->\($0.to)" }
        #expect(red == ["o1->o4", "o4->o6", "o5->o1", "o6->o5"])
        let redNodes = graph.nodes.filter { $0.attributes.contains(.color(.red)) }.map(\.id)
        #expect(redNodes == ["o1", "o4", "o5", "o6"])
    }

    @Test func theSVGIsWellFormedAndShowsTheLabels() throws {
        let trace = Self.trace()
        let svg = try GraphvizRenderer().svg(fromDOT: OwnershipDOTRenderer.render(trace.snapshots[0], in: trace))
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "\(parser.parserError.map(String.init(describing:)) ?? "")")
        #expect(svg.contains("receiveValue (closure)"))
        #expect(svg.contains("Weird &quot;&lt;name&gt;&quot;") || svg.contains("Weird \"&lt;name&gt;\""))
        #expect(svg.contains("deallocated"))
    }
}
