import Foundation
import Lifeline
import LifelineLog
import LifelineSamples
import Testing

/// `lifeline snapshots`, and the snapshot labels an `--at` that names none suggests: the
/// user's own first.
@Suite("Snapshots command", .serialized)
struct SnapshotsCommandTests {
    /// Records the retain-cycle story with automatic snapshots, and two of the user's own
    /// around it, to a log in `folder`.
    func record(in folder: URL) throws -> (path: String, trace: Trace) {
        let path = folder.appendingPathComponent("trace.jsonl").path
        try Lifeline.start(writingTo: path, options: RecordingOptions(snapshots: .everyCall))
        SampleScenario.retainCycle.run(SampleConsole())
        Lifeline.snapshot("after the story")
        Lifeline.snapshot("before stop")
        Lifeline.stop()
        return (path, try TraceReader.read(contentsOf: path))
    }

    @Test func listsEverySnapshotWithItsEventReasonCountsAndLabel() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, trace) = try record(in: folder)
        let run = try LifelineExecutable.run(["snapshots", path])
        #expect(run.status == 0, "\(run.standardError)")
        let lines = run.standardOutputText.split(separator: "\n").map(String.init)
        #expect(lines.count == trace.snapshots.count + 2, "a summary, a header and one line per snapshot")
        #expect(lines[0] == "\(trace.snapshots.count) snapshots, 2 requested by Lifeline.snapshot(_:), \(trace.snapshots.count - 2) automatic.")
        #expect(lines[1].hasPrefix("snapshot  after event"))
        for (line, snapshot) in zip(lines.dropFirst(2), trace.snapshots) {
            let cells = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            #expect(cells.first == "\(snapshot.index)")
            #expect(cells.contains("@\(snapshot.seq)"))
            #expect(line.hasSuffix("  \(snapshot.label)"), "\(line)")
            #expect(line.contains(" \(snapshot.nodes.count)  ") && line.contains(" \(snapshot.edges.count)  "))
        }
        let requested = try #require(lines.first { $0.hasSuffix("after the story") })
        #expect(requested.contains("requested"))
        #expect(lines.contains { $0.contains("at stop") && $0.hasSuffix("stop") })
    }

    @Test func aLogWithoutSnapshotsSaysHowToRecordThem() throws {
        let recorded = try TraceReader.read(contentsOf: OwnershipCommandTests.fixtures
            .appendingPathComponent("forgotten-subscription.jsonl").path)
        let run = try LifelineExecutable.run(["snapshots", try TraceLogFile.write(recorded, named: "plain.jsonl")])
        #expect(run.status == 0)
        #expect(run.standardOutputText.hasPrefix("No ownership snapshots: record with"))
    }

    @Test(arguments: [["graph"], ["render", "--format", "graph-svg"], ["why", "1"]])
    func anAtThatNamesNoneListsTheUsersLabelsFirst(_ command: [String]) throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, _) = try record(in: folder)
        var arguments = command
        arguments.insert(path, at: 1)
        let run = try LifelineExecutable.run(arguments + ["--at", "no such label"])
        #expect(run.status == 2)
        #expect(run.standardError.contains("give a label (\"after the story\", \"before stop\", \"after subscribe @"),
                "\(run.standardError)")
        #expect(run.standardError.contains("`lifeline snapshots \(path)` lists them all"))
    }

    @Test func versionPrintsTheReleaseAndTheLogFormats() throws {
        let run = try LifelineExecutable.run(["--version"])
        #expect(run.status == 0)
        #expect(run.standardOutputText.firstMatch(of: /^\d+\.\d+\.\d+ \(writes log formats \d+ and \d+, reads \d+–\d+\)\n$/) != nil,
                "\(run.standardOutputText)")
    }
}
