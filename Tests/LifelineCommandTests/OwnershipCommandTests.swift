import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Lifeline
import LifelineLog
import LifelineSamples
import OpenCombineShim
import Testing

/// `lifeline graph`, `lifeline why` and the ownership-graph formats of `lifeline render`, on a
/// log of the retain-cycle story recorded with automatic snapshots.
@Suite("Ownership graph commands", .serialized)
struct OwnershipCommandTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("LifelineRenderTests/Fixtures")

    /// A recorded story's log written again without its snapshots (`TraceLogFile` writes
    /// events only).
    func plainTrace() throws -> String {
        let recorded = try TraceReader.read(contentsOf: Self.fixtures.appendingPathComponent("forgotten-subscription.jsonl").path)
        #expect(!recorded.snapshots.isEmpty)
        return try TraceLogFile.write(recorded, named: "plain.jsonl")
    }

    /// Records the retain-cycle story to a log file in `folder`, and returns its path and the
    /// trace read back.
    func record(in folder: URL) throws -> (path: String, trace: Trace) {
        let path = folder.appendingPathComponent("trace.jsonl").path
        try Lifeline.start(writingTo: path, options: RecordingOptions(snapshots: .everyCall))
        SampleScenario.retainCycle.run(SampleConsole())
        Lifeline.stop()
        return (path, try TraceReader.read(contentsOf: path))
    }

    @Test func graphWritesTheLastSnapshotWithTheLoopInRed() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, trace) = try record(in: folder)
        let printed = try LifelineExecutable.run(["graph", path])
        #expect(printed.status == 0, "\(printed.standardError)")
        let dot = printed.standardOutputText
        #expect(dot.hasPrefix("digraph \"ownership\" {"))
        #expect(dot.contains("label=\"snapshot \(trace.snapshots.last!.index) \\\"stop\\\""))
        #expect(dot.contains("[label=\"receiveValue (closure)\", style=\"solid\", color=\"#cf222e\""))

        let file = folder.appendingPathComponent("graph.dot")
        let written = try LifelineExecutable.run(["graph", path, "--at", trace.snapshots[0].label, "-o", file.path])
        #expect(written.status == 0, "\(written.standardError)")
        #expect(try String(contentsOf: file, encoding: .utf8).contains("label=\"snapshot 1 "))
    }

    @Test func aLogWithoutSnapshotsOrAnAtThatNamesNoneIsExitTwo() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let none = try LifelineExecutable.run(["graph", try plainTrace()])
        #expect(none.status == 2)
        #expect(none.standardError.contains("has no ownership snapshot"))
        #expect(none.standardOutput.isEmpty)
        let (path, _) = try record(in: folder)
        let unmatched = try LifelineExecutable.run(["render", path, "--format", "dot", "--at", "no such label"])
        #expect(unmatched.status == 2)
        #expect(unmatched.standardError.contains("no snapshot matches --at no such label"))
        #expect(unmatched.standardError.contains("\"stop\""))
    }

    @Test func renderDrawsTheGraphAsSVGAndPNG() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, _) = try record(in: folder)
        let svg = try LifelineExecutable.run(["render", path, "--format", "graph-svg"])
        #expect(svg.status == 0, "\(svg.standardError)")
        #expect(XMLParser(data: svg.standardOutput).parse())
        #expect(svg.standardOutputText.contains("ProfileViewModel"))

        let refused = try LifelineExecutable.run(["render", path, "--format", "graph-png"])
        #expect(refused.status == 64)
        #expect(refused.standardError.contains("--output"))
        let file = folder.appendingPathComponent("graph.png")
        let png = try LifelineExecutable.run(["render", path, "--format", "graph-png", "-o", file.path])
        #expect(png.status == 0, "\(png.standardError)")
        #expect(try Data(contentsOf: file).prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
    }

    @Test func whySaysWhatHoldsAnObject() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, trace) = try record(in: folder)
        let sink = try #require(trace.objects.values.filter { $0.shortTypeName == "Sink" }.map(\.id).min())
        let viewModel = try #require(trace.objects.values.filter { $0.shortTypeName == "ProfileViewModel" }.map(\.id).min())
        let held = try LifelineExecutable.run(["why", path, "\(sink)"])
        #expect(held.status == 0, "\(held.standardError)")
        let lines = held.standardOutputText.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix(
            "Sink \(sink) is held by a retain cycle that nothing else in the graph holds: ProfileViewModel.cancellable → AnyCancellable → "
                + "Sink.receiveValue (closure) → ProfileViewModel.") == true)
        // The sink's strong references: the conduit's and the AnyCancellable's closure.
        #expect(lines.last == "The runtime counts 2 strong references to Sink \(sink), and the graph draws them all.")
        let first = try LifelineExecutable.run(["why", path, "\(viewModel.rawValue)", "--at", trace.snapshots[0].label])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutputText.contains("In snapshot 1 "))
        // An event number as every output writes it, `@N`, names the snapshot taken after it.
        let byEvent = try LifelineExecutable.run(["why", path, "\(viewModel.rawValue)", "--at", "@\(trace.snapshots[0].seq)"])
        #expect(byEvent.standardOutputText == first.standardOutputText, "\(byEvent.standardError)")
        let unknown = try LifelineExecutable.run(["why", path, "9999"])
        #expect(unknown.status == 2)
        #expect(unknown.standardError.contains("has no object #9999"))
    }

    @Test func whySaysWhatAPerCallSnapshotDidNotCheck() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("trace.jsonl").path
        try Lifeline.start(writingTo: path, options: RecordingOptions(snapshots: .everyCall))
        var cancellables: [AnyCancellable] = []
        let subjects = (0..<20).map { _ in PassthroughSubject<Int, Never>() }
        for subject in subjects { cancellables.append(subject.map { $0 + 1 }.sink { _ in }) }
        Lifeline.stop()
        withExtendedLifetime((cancellables, subjects)) {}
        let trace = try TraceReader.read(contentsOf: path)
        let partial = try #require(trace.snapshots.last { !$0.isComplete && $0.reason == .subscribe })
        let unchecked = try #require(partial.lastChecked.keys.min())
        let why = try LifelineExecutable.run(["why", path, "\(unchecked.rawValue)", "--at", partial.label])
        #expect(why.status == 0, "\(why.standardError)")
        let note = try #require(why.standardOutputText.split(separator: "\n").last.map(String.init))
        #expect(note.hasPrefix("Snapshot \(partial.index) checked \(partial.nodes.count - partial.lastChecked.count) of its \(partial.nodes.count) objects"), "\(note)")
        #expect(note.hasSuffix("among them."), "\(note)")
        let complete = try LifelineExecutable.run(["why", path, "\(unchecked.rawValue)"])
        #expect(!complete.standardOutputText.contains("checked"), "the stop snapshot checked everything")
    }

    @Test func whySaysWhenAnObjectDeallocatedBeforeTheSnapshotDied() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, trace) = try record(in: folder)
        // The [weak self] variant's sink is released before recording stops.
        let sink = try #require(trace.objects.values.filter { $0.shortTypeName == "Sink" }.map(\.id).max())
        let death = try #require(trace.events.first { $0.kind.name == "deallocation" && $0.kind.objects == [sink] })
        guard case .deallocation(_, .observed(let aliveAt)) = death.kind else {
            Issue.record("\(death.kind)")
            return
        }
        let stop = try #require(trace.snapshots.last)
        #expect(death.seq <= stop.seq)
        let why = try LifelineExecutable.run(["why", path, "\(sink)"])
        #expect(why.status == 0, "\(why.standardError)")
        #expect(why.standardOutputText == "In snapshot \(stop.index) \"stop\" (after event @\(stop.seq)), Sink \(sink) was "
            + "deallocated at @\(death.seq) (last seen alive at @\(aliveAt)), before the snapshot.\n")
    }
}
