import Foundation
import Lifeline
import LifelineLog
import LifelineSamples
import OpenCombineShim
import Testing

/// `lifeline diagnose`, run as the built binary on recorded logs: its reports, and the exit
/// status a CI job sees.
@Suite("lifeline diagnose", .serialized)
struct DiagnoseCommandTests {
    /// A log of one sink that is kept and receives two values and the completion.
    func goodLog() throws -> String {
        let trace = try Lifeline.record {
            let subject = PassthroughSubject<Int, Never>()
            let kept = subject.sink { _ in }
            subject.send(1)
            subject.send(2)
            subject.send(completion: .finished)
            withExtendedLifetime(kept) {}
        }
        return try TraceLogFile.write(trace, named: "good.jsonl")
    }

    /// A log of a story with errors: the seed's custom subscriber that forgets its subscription.
    func forgottenSubscriptionLog() throws -> String {
        let trace = try Lifeline.record { SampleScenario.forgottenSubscription.run(SampleConsole()) }
        return try TraceLogFile.write(trace, named: "forgotten-subscription.jsonl")
    }

    /// A log with one warning and no error: a sink whose AnyCancellable is dropped at once.
    func droppedCancellableLog() throws -> String {
        let trace = try Lifeline.record {
            let subject = PassthroughSubject<Int, Never>()
            _ = subject.sink { _ in }
            subject.send(1)
        }
        return try TraceLogFile.write(trace, named: "dropped.jsonl")
    }

    /// Drops the token of a sink subscribed at one line of this file: called once per row.
    private static func showRow(_ subject: PassthroughSubject<Int, Never>) {
        _ = subject.sink { _ in }
    }

    @Test func subscriptionsOneLineMadeTwiceAreToldApartInTheirHeadings() throws {
        let trace = try Lifeline.record {
            let subject = PassthroughSubject<Int, Never>()
            Self.showRow(subject)
            Self.showRow(subject)
            subject.send(1)
        }
        let run = try LifelineExecutable.run(["diagnose", try TraceLogFile.write(trace, named: "rows.jsonl")])
        let headings = run.standardOutputText.split(separator: "\n").filter { $0.hasPrefix("PassthroughSubject #") }
        #expect(headings.count == 2, "\(run.standardOutputText)")
        for (heading, suffix) in zip(headings, ["(1st of 2 made there, P1)", "(2nd of 2 made there, P2)"]) {
            #expect(heading.contains("at DiagnoseCommandTests.swift:") && heading.hasSuffix(suffix), "\(heading)")
        }
    }

    @Test func aCorrectPipelineExitsZeroAndSaysSo() throws {
        let run = try LifelineExecutable.run(["diagnose", try goodLog()])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutputText.hasPrefix("No lifecycle problems found in "), "\(run.standardOutputText)")
        #expect(run.standardError.isEmpty)
    }

    @Test func errorsExitOneAndAreExplainedWithEvidenceAndFix() throws {
        let run = try LifelineExecutable.run(["diagnose", try forgottenSubscriptionLog()])
        #expect(run.status == 1)
        let lines = run.standardOutputText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "1 error in 1 subscription.", "\(run.standardOutputText)")
        #expect(lines.contains {
            $0.hasPrefix("DecodedDataTaskPublisher #") && $0.contains("DecodedDataTaskSubscription #")
                && $0.contains(" → DecodableDataTaskSubscriber #")
        })
        #expect(lines.contains { $0.hasPrefix("  error subscription-not-retained: DecodedDataTaskPublisher.DecodedDataTaskSubscription #") })
        #expect(lines.contains { $0.contains(".receive(subscription: DecodedDataTaskPublisher.DecodedDataTaskSubscription #") && $0.hasSuffix("begins") })
        #expect(lines.contains { $0.contains("DecodedDataTaskSubscription #") && $0.contains("is found deallocated") })
        #expect(lines.filter { $0.hasPrefix("    fix: ") }.count == 1)
    }

    @Test func theJSONReportIsTheDocumentedSchema() throws {
        let run = try LifelineExecutable.run(["diagnose", try forgottenSubscriptionLog(), "--format", "json"])
        #expect(run.status == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutputText.utf8)) as? [String: Any])
        #expect(document["format"] as? String == "lifeline-diagnoses")
        #expect(document["version"] as? Int == 1)
        let summary = try #require(document["summary"] as? [String: Any])
        #expect(summary["errors"] as? Int == 1 && summary["warnings"] as? Int == 0 && summary["info"] as? Int == 0)
        #expect(summary["skipped"] is [[String: Any]])
        let diagnoses = try #require(document["diagnoses"] as? [[String: Any]])
        #expect(diagnoses.compactMap { $0["code"] as? String } == ["subscription-not-retained"])
        for diagnosis in diagnoses {
            let evidence = try #require(diagnosis["evidence"] as? [[String: Any]])
            #expect(!evidence.isEmpty)
            #expect(evidence.allSatisfy { $0["seq"] is Int && $0["text"] is String })
        }
    }

    @Test func warningsFailTheRunOnlyWhenStrict() throws {
        let log = try droppedCancellableLog()
        let lenient = try LifelineExecutable.run(["diagnose", log])
        #expect(lenient.status == 0)
        #expect(lenient.standardOutputText.hasPrefix("1 warning in 1 subscription."), "\(lenient.standardOutputText)")
        #expect(lenient.standardOutputText.contains("warning cancelled-immediately: "))
        let strict = try LifelineExecutable.run(["diagnose", log, "--strict"])
        #expect(strict.status == 1)
        #expect(strict.standardOutputText == lenient.standardOutputText)
    }

    @Test func aBaselineAcceptsItsFindingsAndOnlyNewOnesFailTheRun() throws {
        let forgotten = try forgottenSubscriptionLog()
        let report = try LifelineExecutable.run(["diagnose", forgotten, "--format", "json"])
        #expect(report.status == 1)
        let baseline = FileManager.default.temporaryDirectory.appendingPathComponent("baseline-\(getpid()).json").path
        defer { try? FileManager.default.removeItem(atPath: baseline) }
        try report.standardOutputText.write(toFile: baseline, atomically: true, encoding: .utf8)
        let fingerprint = try #require(report.standardOutputText.split(separator: "\n").first { $0.contains("\"fingerprint\"") })
            .split(separator: "\"").dropLast().last.map(String.init)

        // The same log against its own report: nothing new, the known finding counted.
        let accepted = try LifelineExecutable.run(["diagnose", forgotten, "--baseline", baseline])
        #expect(accepted.status == 0, "\(accepted.standardOutputText)")
        #expect(!accepted.standardOutputText.contains("error subscription-not-retained"))
        // The summary speaks of new problems: the log has one, which the baseline accepts.
        #expect(accepted.standardOutputText.contains("No new lifecycle problems found in ")
            && accepted.standardOutputText.contains(" events; the baseline accepts 1 known finding.\n"), "\(accepted.standardOutputText)")
        #expect(!accepted.standardOutputText.contains("No lifecycle problems found"))
        #expect(accepted.standardOutputText.hasSuffix(
            "Baseline \(baseline)\n  1 known finding not shown (1 subscription-not-retained)\n"
                + "  every finding of the baseline was found again\n"
        ), "\(accepted.standardOutputText)")

        // Another log: its warning is new and fails a strict run; the baseline's finding is
        // resolved there.
        let other = try LifelineExecutable.run(["diagnose", try droppedCancellableLog(), "--baseline", baseline, "--strict"])
        #expect(other.status == 1)
        #expect(other.standardOutputText.contains("warning cancelled-immediately: "))
        #expect(other.standardOutputText.contains("New: 1 warning in 1 subscription; the baseline accepts 0 known findings.\n"), "\(other.standardOutputText)")
        #expect(other.standardOutputText.hasSuffix("  resolved, no longer found: \(fingerprint ?? "?")\n"), "\(other.standardOutputText)")
    }

    @Test func aBaselineIsAlsoAListOfFingerprintsAndAnythingElseExitsTwo() throws {
        let log = try droppedCancellableLog()
        let json = try LifelineExecutable.run(["diagnose", log, "--format", "json"])
        let fingerprint = try #require(json.standardOutputText.split(separator: "\n").first { $0.contains("\"fingerprint\"") })
            .split(separator: "\"").dropLast().last.map(String.init)
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("baseline-\(getpid()).txt").path
        defer { try? FileManager.default.removeItem(atPath: list) }
        try "# accepted until the fix lands\n\n\(fingerprint ?? "")\n".write(toFile: list, atomically: true, encoding: .utf8)
        let accepted = try LifelineExecutable.run(["diagnose", log, "--baseline", list, "--strict"])
        #expect(accepted.status == 0, "\(accepted.standardOutputText)")
        #expect(accepted.standardOutputText.contains("1 known finding not shown (1 cancelled-immediately)"))

        try "# accepted\nnot a fingerprint\n".write(toFile: list, atomically: true, encoding: .utf8)
        let bad = try LifelineExecutable.run(["diagnose", log, "--baseline", list])
        #expect(bad.status == 2)
        #expect(bad.standardError.contains("is no baseline: line 2, \"not a fingerprint\", is not a fingerprint"), "\(bad.standardError)")
        try "{\"format\": \"something else\", \"diagnoses\": []}".write(toFile: list, atomically: true, encoding: .utf8)
        let foreign = try LifelineExecutable.run(["diagnose", log, "--baseline", list])
        #expect(foreign.status == 2)
        #expect(foreign.standardError.contains("its format is \"something else\", not \"lifeline-diagnoses\""), "\(foreign.standardError)")
        let missing = try LifelineExecutable.run(["diagnose", log, "--baseline", list + ".missing"])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("cannot read the baseline"), "\(missing.standardError)")
        let endless = try LifelineExecutable.run(["diagnose", log, "--baseline", "/dev/zero"], timeout: 60)
        #expect(endless.status == 2)
        #expect(endless.standardError.contains("cannot read the baseline /dev/zero: it is not a regular file"), "\(endless.standardError)")
    }

    @Test func aMissingFileExitsTwoWithTheReason() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID()).jsonl").path
        let run = try LifelineExecutable.run(["diagnose", path])
        #expect(run.status == 2)
        #expect(run.standardOutputText.isEmpty)
        #expect(run.standardError == "error: cannot read \(path): no such file\n", "\(run.standardError)")
    }

    @Test func aFileThatIsNotALogExitsTwo() throws {
        let path = try TraceLogFile.write(Data("PNG\u{0}\u{1}garbage\n".utf8), named: "corrupt.jsonl")
        let run = try LifelineExecutable.run(["diagnose", path])
        #expect(run.status == 2)
        #expect(run.standardOutputText.isEmpty)
        #expect(run.standardError.contains("line 1: not a Lifeline log"), "\(run.standardError)")
    }

    @Test func aLogCutInsideItsHeaderExitsTwo() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: try goodLog()))
        let header = try #require(whole.firstIndex(of: UInt8(ascii: "\n")))
        let path = try TraceLogFile.write(whole.prefix(header / 2), named: "cut.jsonl")
        let run = try LifelineExecutable.run(["diagnose", path])
        #expect(run.status == 2)
        #expect(run.standardOutputText.isEmpty)
        #expect(run.standardError.hasPrefix("error: \(path): line 1: "), "\(run.standardError)")
    }

    @Test func aLogCutInItsLastLineIsStillDiagnosedWithNotes() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: try forgottenSubscriptionLog()))
        let path = try TraceLogFile.write(whole.prefix(whole.count - 20), named: "truncated.jsonl")
        let run = try LifelineExecutable.run(["diagnose", path])
        #expect(run.status == 1)
        #expect(run.standardError.contains("warning: \(path): the log has no end record"), "\(run.standardError)")
        let lines = run.standardOutputText.split(separator: "\n").map(String.init)
        #expect(lines.contains("note: the log has no end record: the recorded process stopped without stopping the recording."))
        #expect(lines.contains("1 error in 1 subscription."), "\(run.standardOutputText)")
    }

    @Test func aLogWithoutSnapshotsSaysRetainCyclesWereNotChecked() throws {
        let note = "note: retain cycles and leaks at stop were not checked (retain-cycle, leaked-subscription at stop): "
            + "the log has no ownership snapshot; take one with Lifeline.snapshot(_:) before recording stops, or record "
            + "with RecordingOptions(snapshots: .atStop), the default."
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let subject = PassthroughSubject<Int, Never>()
        /// Records a kept sink to `name`, with a snapshot taken before stopping or not, and
        /// returns the log's path, the trace read back, and both reports.
        func diagnosed(_ name: String, snapshot: Bool) throws -> (trace: Trace, text: String, skipped: [[String: Any]]) {
            let path = folder.appendingPathComponent(name).path
            try Lifeline.start(writingTo: path, options: RecordingOptions(snapshots: .none))
            let kept = subject.sink { _ in }
            subject.send(1)
            if snapshot { Lifeline.snapshot("before stop") }
            Lifeline.stop()
            withExtendedLifetime(kept) {}
            let text = try LifelineExecutable.run(["diagnose", path]).standardOutputText
            let json = try LifelineExecutable.run(["diagnose", path, "--format", "json"]).standardOutputText
            let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let skipped = try #require((document["summary"] as? [String: Any])?["skipped"] as? [[String: Any]])
            return (try TraceReader.read(contentsOf: path), text, skipped)
        }
        let isNote = { (text: String) in text.split(separator: "\n").map(String.init).contains(note) }
        let skipsSnapshotChecks = { (skipped: [[String: Any]]) in
            skipped.contains { ($0["checks"] as? [String]) == ["retain-cycle", "leaked-subscription at stop"] }
        }

        // The recorder may take a snapshot at stop by default: the report must say so exactly
        // when the log has none.
        let plain = try diagnosed("plain.jsonl", snapshot: false)
        #expect(isNote(plain.text) == plain.trace.snapshots.isEmpty, "\(plain.text)")
        #expect(skipsSnapshotChecks(plain.skipped) == plain.trace.snapshots.isEmpty)

        let snapshotted = try diagnosed("snapshot.jsonl", snapshot: true)
        #expect(!snapshotted.trace.snapshots.isEmpty)
        #expect(!isNote(snapshotted.text), "\(snapshotted.text)")
        #expect(snapshotted.skipped.isEmpty)
    }

    /// A log in which a sink subscribed between the marks "screen shown" and "screen closed"
    /// is still subscribed, and alive, when recording stops.
    func leakLog() throws -> String {
        let subject = PassthroughSubject<Int, Never>()
        var kept: AnyCancellable?
        let trace = try Lifeline.record {
            Lifeline.mark("screen shown")
            kept = subject.sink { _ in }
            subject.send(1)
            Lifeline.mark("screen closed")
        }
        kept?.cancel()
        return try TraceLogFile.write(trace, named: "leak.jsonl")
    }

    @Test func aScopeBetweenTwoMarksFindsTheLeak() throws {
        let log = try leakLog()
        let unscoped = try LifelineExecutable.run(["diagnose", log])
        #expect(unscoped.status == 0)
        #expect(unscoped.standardOutputText.hasPrefix("No lifecycle problems found"), "\(unscoped.standardOutputText)")
        let scoped = try LifelineExecutable.run(["diagnose", log, "--scope", "screen shown", "screen closed"])
        #expect(scoped.status == 1)
        #expect(scoped.standardOutputText.hasPrefix("1 error in 1 subscription."), "\(scoped.standardOutputText)")
        #expect(scoped.standardOutputText.contains("  error leaked-subscription: Sink #"))
        #expect(scoped.standardOutputText.contains("mark \"screen closed\""))
    }

    /// A model whose sink keeps it: each one made stays subscribed to the store's subject.
    private final class BadgeModel {
        private(set) var count = 0
        private var cancellable: AnyCancellable?

        init(unread: PassthroughSubject<Int, Never>) {
            cancellable = unread.sink { count in self.count = count }
        }
    }

    /// A log of a screen opened and closed `runs` times between the marks "screen shown" and
    /// "screen closed", each time leaving its model subscribed, with a snapshot after each run
    /// when `snapshots` is set.
    func repeatedLeakLog(runs: Int, snapshots: Bool) throws -> String {
        // Recorded straight to the file: a trace written back line by line has no snapshots.
        let path = try TraceLogFile.write(Data(), named: "repeated-leak.lifeline")
        let unread = PassthroughSubject<Int, Never>()
        try Lifeline.start(writingTo: path)
        for run in 1...runs {
            Lifeline.mark("screen shown")
            _ = BadgeModel(unread: unread)
            unread.send(run)
            Lifeline.mark("screen closed")
            if snapshots { Lifeline.snapshot("after run \(run)") }
        }
        Lifeline.stop()
        return path
    }

    @Test func aRepeatedScopeFindsWhatGrowsWithItsRuns() throws {
        let log = try repeatedLeakLog(runs: 5, snapshots: true)
        let run = try LifelineExecutable.run(["diagnose", log, "--scope", "screen shown", "screen closed"])
        #expect(run.status == 1)
        let text = run.standardOutputText
        #expect(text.contains("error lifecycle-growth: Each run of the scenario left more behind than the run before, from "
            + "run 2 of 5 on: pipelines made at DiagnoseCommandTests.swift:"), "\(text)")
        #expect(text.contains("DiagnoseCommandTests.BadgeModel objects (alive after each run: 1, 2, 3, 4, 5)"), "\(text)")
        #expect(run.standardError.isEmpty, "\(run.standardError)")
        // With a warm-up of two runs, three runs still grew; with three, two do not make growth.
        let warmedUp = try LifelineExecutable.run(["diagnose", log, "--scope", "screen shown", "screen closed", "--warm-up", "2"])
        #expect(warmedUp.standardOutputText.contains("from run 3 of 5 on"), "\(warmedUp.standardOutputText)")
        let tooLong = try LifelineExecutable.run(["diagnose", log, "--scope", "screen shown", "screen closed", "--warm-up", "3"])
        #expect(!tooLong.standardOutputText.contains("lifecycle-growth"), "\(tooLong.standardOutputText)")
        #expect(tooLong.standardError.contains("note: lifecycle-growth was not checked: 5 runs between the marks with a warm-up "
            + "of 3 can't show growth; it takes at least 6"), "\(tooLong.standardError)")
    }

    @Test func aRepeatedScopeWithoutSnapshotsSaysGrowthWasNotChecked() throws {
        let run = try LifelineExecutable.run([
            "diagnose", try repeatedLeakLog(runs: 5, snapshots: false), "--scope", "screen shown", "screen closed",
        ])
        #expect(!run.standardOutputText.contains("lifecycle-growth"), "\(run.standardOutputText)")
        // The snapshot at stop follows the last run.
        #expect(run.standardError.contains("note: lifecycle-growth was not checked: 4 of the 5 runs between the marks have no "
            + "ownership snapshot after them"), "\(run.standardError)")
    }

    @Test func aScopeWhoseMarksAreMissingExitsTwo() throws {
        let run = try LifelineExecutable.run(["diagnose", try leakLog(), "--scope", "screen shown", "screen hidden"])
        #expect(run.status == 2)
        #expect(run.standardOutputText.isEmpty)
        #expect(run.standardError.contains("no mark \"screen shown\" followed by a mark \"screen hidden\""), "\(run.standardError)")
    }

    @Test func aScopeNeedsTwoMarks() throws {
        let run = try LifelineExecutable.run(["diagnose", try goodLog(), "--scope", "screen shown"])
        #expect(run.status == 64)
        #expect(run.standardError.contains("--scope takes two mark labels"), "\(run.standardError)")
    }

    @Test func anUnknownFormatIsAUsageError() throws {
        let run = try LifelineExecutable.run(["diagnose", try goodLog(), "--format", "yaml"])
        #expect(run.status == 64)
        #expect(run.standardError.contains("yaml"))
    }
}
