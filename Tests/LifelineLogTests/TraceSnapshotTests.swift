import Foundation
import Testing
@testable import LifelineLog

/// Snapshot lines: what the encoder writes the reader reads back, and bad snapshots are errors
/// naming the line and field.
@Suite struct TraceSnapshotTests {
    static let viewModel = TraceObjectID(10), cancellables = TraceObjectID(11), cancellable = TraceObjectID(12)
    static let sink = TraceObjectID(2), context = TraceObjectID(13)

    /// The sample log with the declarations a retain-cycle snapshot needs, and two snapshots.
    static func logWithSnapshots(label: String = "after sink", name: String = "ViewModel", field: String = "cancellables")
        -> (log: SampleLog, snapshots: [TraceSnapshot]) {
        var log = SampleLog()
        log.objects += [
            TraceObject(id: viewModel, role: .object, typeName: "App.ViewModel", shortTypeName: "ViewModel", lifetimeTracked: true),
            TraceObject(id: cancellables, role: .object, typeName: "Swift.Set<OpenCombine.AnyCancellable>",
                        shortTypeName: "Set<AnyCancellable>", lifetimeTracked: true),
            TraceObject(id: cancellable, role: .object, typeName: "OpenCombine.AnyCancellable",
                        shortTypeName: "AnyCancellable", lifetimeTracked: true),
            TraceObject(id: context, role: .object, typeName: "closure context", shortTypeName: "closure context",
                        lifetimeTracked: true),
        ]
        let cycle = TraceSnapshot(
            index: 1, seq: 6, label: label, reason: .requested,
            nodes: [
                .init(id: viewModel, kind: .root, name: name, retainCounts: .init(strong: 2, weak: 0, unowned: 0), alive: true),
                .init(id: cancellables, kind: .collection, retainCounts: .init(strong: 1, weak: 0, unowned: 0), alive: true),
                .init(id: cancellable, kind: .cancellable, retainCounts: .init(strong: 1, weak: 2, unowned: 2, recorderWeak: 1, recorderUnowned: 1), alive: true),
                .init(id: sink, kind: .subscriber, retainCounts: .init(strong: 3, weak: 0, unowned: 2), alive: true),
                .init(id: context, kind: .closureContext, retainCounts: nil, alive: true, opaque: true),
                .init(id: TraceObjectID(3), kind: .subscription, retainCounts: nil, alive: false),
            ],
            edges: [
                .init(from: viewModel, to: cancellables, field: field, ownership: .strong),
                .init(from: cancellables, to: cancellable, field: "[0]", ownership: .strong),
                .init(from: cancellable, to: sink, field: "_cancel (closure)", ownership: .strong),
                .init(from: sink, to: viewModel, field: "receiveValue (closure)", ownership: .strong),
                .init(from: sink, to: viewModel, field: "owner", ownership: .weak),
                .init(from: context, to: sink, field: "capture 0", ownership: .unowned),
                .init(from: context, to: viewModel, field: "capture 1", ownership: .unownedUnsafe),
            ]
        )
        let stop = TraceSnapshot(index: 2, seq: 13, label: "stop", reason: .stop, nodes: [], edges: [])
        return (log, [stop, cycle])
    }

    static func data(_ log: SampleLog, _ snapshots: [TraceSnapshot]) -> Data {
        var bytes = log.data(closed: false)
        for snapshot in snapshots {
            TraceLineEncoder.withLine(for: snapshot) { bytes.append(contentsOf: $0) }
        }
        TraceLineEncoder.withEndLine(events: UInt64(log.events.count), dropped: 0) { bytes.append(contentsOf: $0) }
        return bytes
    }

    static func lines(_ data: Data) -> [String] {
        String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static func read(_ lines: [String]) throws -> Trace {
        try TraceReader.read(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    @Test func snapshotsSurviveAWriteAndAReadInOrder() throws {
        let (log, snapshots) = Self.logWithSnapshots()
        let trace = try TraceReader.read(Self.data(log, snapshots))
        #expect(trace.snapshots == snapshots.sorted { $0.index < $1.index })
        #expect(trace.snapshots.map(\.index) == [1, 2])
        #expect(trace.snapshot(at: "after sink")?.index == 1)
        #expect(trace.snapshot(at: "12")?.index == 1)
        #expect(trace.snapshot(at: "13")?.index == 2)
        #expect(trace.snapshot(at: "5") == nil)
        #expect(trace.objects[Self.viewModel]?.role == .object)
        #expect(trace.events == log.events)
        #expect(trace.damage.isEmpty)
    }

    @Test func theLineMatchesTheDocumentedLayout() throws {
        let snapshot = TraceSnapshot(
            index: 4, seq: 17, label: "after sink", reason: .subscribe,
            nodes: [
                .init(id: TraceObjectID(7), kind: .subscriber, retainCounts: .init(strong: 2, weak: 0, unowned: 2, recorderUnowned: 1), alive: true),
                .init(id: TraceObjectID(5), kind: .root, name: "ViewModel", retainCounts: .init(strong: 1, weak: 3, unowned: 1, recorderWeak: 2), alive: true),
                .init(id: TraceObjectID(8), kind: .object, retainCounts: .init(strong: 1, weak: 1, unowned: 1), alive: true, opaque: true),
                .init(id: TraceObjectID(9), kind: .subscription, retainCounts: nil, alive: false),
            ],
            edges: [.init(from: TraceObjectID(7), to: TraceObjectID(5), field: "receiveValue (closure)", ownership: .strong)]
        )
        let line = TraceLineEncoder.withLine(for: snapshot) { String(decoding: $0, as: UTF8.self) }
        #expect(line == """
            {"kind":"snapshot","snapshot":4,"at":17,"label":"after sink","reason":"subscribe","nodes":[\
            {"id":5,"kind":"root","name":"ViewModel","strong":1,"weak":3,"unowned":1,"recorder_weak":2,"alive":true},\
            {"id":7,"kind":"subscriber","strong":2,"weak":0,"unowned":2,"recorder_unowned":1,"alive":true},\
            {"id":8,"kind":"object","strong":1,"weak":1,"unowned":1,"opaque":true,"alive":true},\
            {"id":9,"kind":"subscription","alive":false}],\
            "edges":[{"from":7,"to":5,"field":"receiveValue (closure)","ownership":"strong"}]}

            """)
    }

    @Test func hostileLabelsNamesAndFieldsStayOnOneLineAndComeBackIntact() throws {
        let hostile = "quote\" back\\slash ],{\"x\":1} new\nline\r tab\t nul\u{0} del\u{7F} 🧵 "
            + String(repeating: "→", count: 10_000)
        let (log, snapshots) = Self.logWithSnapshots(label: hostile, name: hostile, field: hostile)
        let data = Self.data(log, snapshots)
        #expect(Self.lines(data).count == 1 + log.declarationCount + log.events.count + snapshots.count + 1)
        let trace = try TraceReader.read(data)
        let first = try #require(trace.snapshots.first)
        #expect(first.label == hostile)
        #expect(first.node(Self.viewModel)?.name == hostile)
        #expect(first.edges.contains { $0.field == hostile && $0.from == Self.viewModel })
        #expect(trace.snapshots == snapshots.sorted { $0.index < $1.index })
    }

    @Test func aVersionOneLogWithoutSnapshotsIsStillRead() throws {
        var lines = Self.lines(SampleLog().data())
        lines[0] = lines[0].replacingOccurrences(of: "\"version\":\(TraceHeader.untypedJSONLinesVersion)", with: "\"version\":1")
        let trace = try Self.read(lines)
        #expect(trace.header.version == 1)
        #expect(trace.snapshots.isEmpty)
    }

    /// Each edit of the first snapshot line, and the error it must give.
    static let damage: [(edit: @Sendable (String) -> String, field: String, reason: String)] = [
        ({ $0.replacingOccurrences(of: "\"kind\":\"root\"", with: "\"kind\":\"gadget\"") },
         "nodes[2].kind", "has the unknown value \"gadget\""),
        ({ $0.replacingOccurrences(of: "\"ownership\":\"weak\"", with: "\"ownership\":\"sticky\"") },
         "edges[0].ownership", "has the unknown value \"sticky\""),
        ({ $0.replacingOccurrences(of: ",\"alive\":false", with: "") }, "nodes[1].alive", "is missing"),
        ({ $0.replacingOccurrences(of: "\"strong\":2,", with: "") }, "nodes[2].strong", "is missing"),
        ({ $0.replacingOccurrences(of: "\"reason\":\"requested\"", with: "\"reason\":7") }, "reason", "must be a string"),
        ({ $0.replacingOccurrences(of: "\"edges\":[", with: "\"edges\":[3,") }, "edges", "must be an array of objects"),
        ({ $0.replacingOccurrences(of: "\"nodes\":[", with: "\"nodes\":{\"a\":[").replacingOccurrences(of: "],\"edges\"", with: "]},\"edges\"") },
         "nodes", "must be an array"),
        ({ $0.replacingOccurrences(of: "{\"from\":13,\"to\":2", with: "{\"from\":13,\"to\":77") },
         "edges[5].to", "names object 77, which is not a node of the snapshot"),
        ({ $0.replacingOccurrences(of: "\"snapshot\":1", with: "\"snapshot\":0") }, "snapshot", "must be a positive integer"),
        ({ $0.replacingOccurrences(of: "\"snapshot\":1", with: "\"snapshot\":2") }, "snapshot", "repeats snapshot number 2"),
        ({ $0.replacingOccurrences(of: "{\"id\":3,", with: "{\"id\":2,") }, "nodes[1].id", "repeats object 2"),
        ({ $0.replacingOccurrences(of: "\"recorder_weak\":1", with: "\"recorder_weak\":-1") },
         "nodes[4].recorder_weak", "is a negative count"),
        ({ $0.replacingOccurrences(of: "\"recorder_unowned\":1", with: "\"recorder_unowned\":-1") },
         "nodes[4].recorder_unowned", "is a negative count"),
        ({ $0.replacingOccurrences(of: "\"strong\":3", with: "\"strong\":-3") }, "nodes[0].strong", "is a negative count"),
        ({ $0.replacingOccurrences(of: "\"opaque\":true", with: "\"opaque\":\"yes\"") }, "nodes[5].opaque", "must be true or false"),
    ]

    @Test(arguments: damage.indices) func aBadSnapshotIsAnErrorNamingLineAndField(case index: Int) throws {
        let (log, snapshots) = Self.logWithSnapshots()
        var lines = Self.lines(Self.data(log, snapshots))
        let line = try #require(lines.firstIndex { $0.contains("\"snapshot\":1,") })
        let edited = Self.damage[index].edit(lines[line])
        #expect(edited != lines[line], "the edit must change the line")
        lines[line] = edited
        #expect(throws: TraceReadError.badField(line: line + 1, field: Self.damage[index].field, reason: Self.damage[index].reason)) {
            try Self.read(lines)
        }
    }

    /// A kill while one thread wrote an object's declaration, after another thread's snapshot
    /// named it, leaves a snapshot node nothing declares: the log is read, the node is an
    /// object of unknown type, and the warning says how many snapshots name it.
    @Test func aSnapshotNodeThatIsNotDeclaredIsAnObjectOfUnknownType() throws {
        let (log, snapshots) = Self.logWithSnapshots()
        var lines = Self.lines(Self.data(log, snapshots))
        let declaration = try #require(lines.firstIndex { $0.contains("\"kind\":\"object\",\"id\":13,") })
        lines.remove(at: declaration)
        let listing = lines.filter { $0.contains("\"kind\":\"snapshot\"") && $0.contains("{\"id\":13,") }.count
        #expect(listing > 0)
        let trace = try Self.read(lines)
        #expect(trace.events.count == log.events.count)
        #expect(trace.snapshots.count == snapshots.count)
        #expect(trace.object(TraceObjectID(13))?.typeName == TraceObject.unknownTypeName)
        #expect(trace.damage.contains(.undeclaredObject(TraceObjectID(13), events: 0, snapshots: listing)), "\(trace.damage)")
        #expect(trace.damage.map(\.description).contains {
            $0.hasPrefix("object 13 is used but never declared") && $0.contains("\(listing) snapshot")
        })
    }
}
