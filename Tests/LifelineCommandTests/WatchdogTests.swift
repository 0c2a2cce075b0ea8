import Foundation
import LifelineLog
import Testing

/// The hang record, from real programs (Tests/HangingChild): a hung program recorded with a
/// watchdog writes one, with a snapshot, while the test waits; one recorded without writes one
/// when it receives SIGQUIT, and runs on; either is then killed with SIGKILL, and
/// `lifeline diagnose` opens each `waits-on` finding with the moment the program was seen
/// hanging, citing the event the record follows, and `lifeline timeline` writes it after that
/// event. A program idle with no pipeline open, or
/// fixed, gets no record. In both log formats.
@Suite("the watchdog and SIGQUIT's hang records", .serialized)
struct WatchdogTests {
    /// Reads `log` until it holds the snapshot a hang record is followed by, and returns it; it
    /// fails after `limit`.
    func awaitHangSnapshot(in log: String, limit: Duration = .seconds(60)) throws -> Trace {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while clock.now < deadline {
            if let trace = try? TraceReader.read(contentsOf: log), trace.snapshots.contains(where: { $0.reason == .hang }) {
                return trace
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw HangingChild.Failure(description: "no hang snapshot in \(log) after \(limit)")
    }

    /// The `waits-on` findings `lifeline diagnose --format json` reads from `log`, message and
    /// evidence, and the causes of the hang records its `trace.hangs` lists.
    func waits(in log: String) throws -> [(message: String, evidence: [Int])] {
        try diagnose(log).waits
    }

    func diagnose(_ log: String) throws -> (waits: [(message: String, evidence: [Int])], hangCauses: [String]) {
        let run = try LifelineExecutable.run(["diagnose", log, "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: run.standardOutput) as? [String: Any])
        let hangs = (document["trace"] as? [String: Any])?["hangs"] as? [[String: Any]] ?? []
        let diagnoses = document["diagnoses"] as? [[String: Any]] ?? []
        let waits = diagnoses.filter { $0["code"] as? String == "waits-on" }.map { finding in
            (
                message: (finding["message"] as? String ?? "").replacing(/#[0-9]+/, with: "#_"),
                evidence: (finding["evidence"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? Int }
            )
        }
        return (waits, hangs.compactMap { $0["cause"] as? String })
    }

    /// Checks the log a hung `zip-one-side` child left after its hang record for `cause` and a
    /// SIGKILL: the record follows the last event, its snapshot follows it, and the one
    /// `waits-on` finding begins with it, cites its event, and names the stuck stage by the
    /// child's file and line.
    func expectHang(in log: String, cause: TraceHang.Cause, source: String, idleAtLeast: UInt64) throws {
        let trace = try TraceReader.read(contentsOf: log)
        #expect(trace.damage.contains(.notClosed))
        let hang = try #require(trace.hangs.last)
        #expect(trace.hangs.allSatisfy { $0.cause == cause })
        #expect(hang.seq == trace.events.last?.seq)
        // The record's own figure: a binary log's event times are converted again at each read,
        // so the time of its last event may move by nanoseconds between the two reads.
        #expect(hang.idle >= idleAtLeast)
        let snapshot = try #require(trace.snapshots.first { $0.reason == .hang })
        #expect(snapshot.seq == hang.seq)
        #expect(snapshot.label.contains("(\(cause.rawValue))"))

        let (waits, hangCauses) = try diagnose(log)
        #expect(hangCauses == trace.hangs.map { _ in cause.rawValue })
        #expect(waits.count == 1, "\(waits.map(\.message))")
        let wait = try #require(waits.first)
        #expect(wait.message.hasPrefix("The program was seen hanging at "), "\(wait.message)")
        #expect(wait.message.contains(", after @\(hang.seq): no event for "), "\(wait.message)")
        #expect(wait.message.contains(" s while 1 pipeline was open (\(source)). When the log ended, "), "\(wait.message)")
        #expect(wait.evidence.contains(Int(hang.seq)), "\(wait.evidence)")
        let quotes = "ChildSubscriber \"quotes\" #_ (\(try HangingChild.place(of: ".zip(quotes.lifeline(\"quotes\"))")))"
        #expect(wait.message.hasSuffix("→ \(quotes) → PassthroughSubject #_."), "\(wait.message)")

        // The sequence diagram ends with the moment, under what each stage waits on.
        let svg = try LifelineExecutable.run(["render", log, "--format", "svg"]).standardOutputText
        #expect(svg.contains(#/class="tx tb hl">‖ The program was seen hanging at [0-9.]+ s, after @\d+: no event for /#), "\(svg.suffix(2_000))")

        // The timeline writes each record as a line of its own, after the events it follows.
        let timeline = try LifelineExecutable.run(["timeline", log, "--no-times"]).standardOutputText.split(separator: "\n")
        let hangLines = timeline.indices.filter { timeline[$0].hasPrefix("   hang  ") }
        #expect(hangLines.count == trace.hangs.count, "\(timeline.suffix(4))")
        let last = try #require(hangLines.last)
        #expect(timeline[last].contains("  ‖ seen hanging: no event for ") && timeline[last].hasSuffix(" ms (\(source))"), "\(timeline[last])")
        // Nothing but the log's notes after it: the record follows the last event.
        #expect(timeline[(last + 1)...].allSatisfy { $0.hasPrefix("note: ") }, "\(timeline.suffix(4))")
        #expect(timeline[..<last].contains { $0.hasPrefix("     @") || $0.hasPrefix("    @") })
    }

    @Test(arguments: ["binary", "jsonl"])
    func aHungProgramWithAWatchdogWritesAHangRecordThatDiagnoseBeginsWith(format: String) throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("zip.lifeline").path
        let child = try HangingChild.launch("zip-one-side", fixed: false, log: log, options: "watchdog=1s,format=\(format)")
        defer { child.killNow() }
        let seen = try awaitHangSnapshot(in: log)
        #expect(seen.header.format.rawValue == format)
        child.killNow()
        try expectHang(in: log, cause: .watchdog, source: "the watchdog's hang record", idleAtLeast: 1_000_000_000)
    }

    @Test(arguments: ["binary", "jsonl"])
    func sigquitMakesARecordingProgramWriteAHangRecordAndRunOn(format: String) throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("zip.lifeline").path
        let child = try HangingChild.launch("zip-one-side", fixed: false, log: log, options: "format=\(format)")
        defer { child.killNow() }
        child.send(SIGQUIT)
        _ = try awaitHangSnapshot(in: log)
        // SIGQUIT's default would have ended it; the recording's handler only asked for the record.
        #expect(child.process.isRunning)
        child.killNow()
        #expect(child.process.terminationReason == .uncaughtSignal && child.process.terminationStatus == SIGKILL)
        try expectHang(in: log, cause: .signal, source: "a hang record written on SIGQUIT", idleAtLeast: 0)
    }

    /// A program with no pipeline open is idle, not hung: the watchdog, checking every 20 ms for
    /// 3 s, never writes a record, nor a snapshot.
    @Test(arguments: [("idle", false), ("zip-one-side", true), ("silent-subject", true)])
    func theWatchdogWritesNothingForAnIdleOrFixedProgram(hangingCase: String, fixed: Bool) throws {
        for format in ["binary", "jsonl"] {
            let folder = try LifelineExecutable.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let log = folder.appendingPathComponent("\(hangingCase).lifeline").path
            let child = try HangingChild.launch(hangingCase, fixed: fixed, log: log, options: "watchdog=100ms,format=\(format)")
            Thread.sleep(forTimeInterval: 3)
            #expect(child.process.isRunning)
            child.killNow()
            let trace = try TraceReader.read(contentsOf: log)
            #expect(trace.hangs.isEmpty, "\(hangingCase) \(format): \(trace.hangs)")
            #expect(trace.snapshots.isEmpty)
            #expect(try waits(in: log).isEmpty)
        }
    }
}
