import Foundation
import Testing

/// Programs that hang (Tests/HangingChild), killed with SIGKILL once every event of their hang
/// is in the log, and what `lifeline diagnose` reads from the log they leave, which has no end
/// record: the `waits-on` chain from the pipeline's end to the stage that cannot move, each
/// named by the child's file and line. The same programs fixed, killed the same way, get no
/// such finding.
@Suite("waits-on from a killed program", .serialized)
struct WaitsOnChainTests {
    /// One `waits-on` finding of a JSON report, with object ids left out of its message
    /// (`Sink "profile" #_`) so that it reads the same whatever ids the log gave.
    struct Finding {
        let severity: String
        let message: String
        let evidence: [Int]
        let fingerprint: String
    }

    /// What `lifeline diagnose --format json` said about the log `hangingCase` left.
    struct Diagnosis {
        let status: Int32
        let endIsKnown: Bool?
        let waits: [Finding]
        let events: Int
    }

    /// Runs the child's case, kills it, and diagnoses its log.
    func diagnoseKilled(_ hangingCase: String, fixed: Bool) throws -> Diagnosis {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("\(hangingCase).lifeline").path
        try HangingChild.runAndKill(hangingCase, fixed: fixed, log: log)
        let run = try LifelineExecutable.run(["diagnose", log, "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: run.standardOutput) as? [String: Any])
        let trace = document["trace"] as? [String: Any]
        let diagnoses = document["diagnoses"] as? [[String: Any]] ?? []
        let waits = diagnoses.filter { $0["code"] as? String == "waits-on" }.map { finding in
            Finding(
                severity: finding["severity"] as? String ?? "",
                message: (finding["message"] as? String ?? "").replacing(/#[0-9]+/, with: "#_"),
                evidence: (finding["evidence"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? Int },
                fingerprint: finding["fingerprint"] as? String ?? ""
            )
        }
        return Diagnosis(
            status: run.status, endIsKnown: trace?["endIsKnown"] as? Bool, waits: waits, events: trace?["events"] as? Int ?? 0
        )
    }

    /// The one `waits-on` finding of a hung case's log, which must be one without its end record.
    func waitOf(_ hangingCase: String) throws -> Finding {
        let diagnosis = try diagnoseKilled(hangingCase, fixed: false)
        #expect(diagnosis.endIsKnown == false)
        #expect(diagnosis.waits.count == 1, "\(diagnosis.waits.map(\.message))")
        let wait = try #require(diagnosis.waits.first)
        #expect(!wait.evidence.isEmpty && wait.evidence.allSatisfy { $0 >= 1 && $0 <= diagnosis.events }, "\(wait.evidence)")
        #expect(wait.evidence == wait.evidence.sorted())
        return wait
    }

    @Test func aSubscriberThatNeverAskedIsTheStageThatCannotMove() throws {
        let wait = try waitOf("never-requested")
        let place = try HangingChild.place(of: ".lifeline(\"reply reader\")")
        let reader = "ReplyReader \"reply reader\" #_ (\(place))"
        #expect(wait.severity == "warning")
        #expect(wait.message.hasPrefix("When the log ended, this pipeline was still open. \(reader) cannot move: it was handed "
            + "PassthroughSubject.Conduit #_ (\(place)) at @"), "\(wait.message)")
        #expect(wait.message.contains("and never asked for a value"), "\(wait.message)")
        #expect(wait.message.hasSuffix("Waits on: \(reader)."), "\(wait.message)")
    }

    @Test func firstOnASubjectNobodySendsToWaitsOnTheSubject() throws {
        let wait = try waitOf("silent-subject")
        let place = try HangingChild.place(of: ".lifeline(\"first answer\")")
        #expect(wait.severity == "info")
        #expect(wait.message.hasPrefix("When the log ended, Sink \"first answer\" #_ (\(place)) was still waiting: it asked "
            + "First #_ for unlimited values and received none (unlimited demand outstanding)."), "\(wait.message)")
        #expect(wait.message.contains("PassthroughSubject #_ cannot move: nothing was sent to it since First.Inner #_ (\(place)) "
            + "asked it for values at @"), "\(wait.message)")
        #expect(wait.message.hasSuffix("Waits on: Sink \"first answer\" #_ (\(place)) → First.Inner #_ (\(place)) → "
            + "PassthroughSubject #_."), "\(wait.message)")
    }

    @Test func aFutureWhosePromiseIsNeverCalledIsWhereTheChainEnds() throws {
        let wait = try waitOf("unkept-promise")
        let sink = "Sink \"profile\" #_ (\(try HangingChild.place(of: ".lifeline(\"profile\")")))"
        #expect(wait.severity == "info")
        #expect(wait.message.contains("Future #_ cannot move: its promise had not been called when the log ended: it delivered "
            + "nothing since \(sink) asked it for values at @"), "\(wait.message)")
        #expect(wait.message.hasSuffix("Waits on: \(sink) → Future #_."), "\(wait.message)")
    }

    @Test func zipWaitsOnTheSideThatReceivedNothing() throws {
        let wait = try waitOf("zip-one-side")
        let pairs = "Sink \"priced quotes\" #_ (\(try HangingChild.place(of: ".lifeline(\"priced quotes\")")))"
        let quotes = "ChildSubscriber \"quotes\" #_ (\(try HangingChild.place(of: ".zip(quotes.lifeline(\"quotes\"))")))"
        let prices = "ChildSubscriber \"prices\" #_ (\(try HangingChild.place(of: "prices.lifeline(\"prices\")")))"
        #expect(wait.severity == "info")
        #expect(wait.message.contains("\(pairs) waits on \(quotes): it asked PassthroughSubject #_ for unlimited values and "
            + "received none"), "\(wait.message)")
        #expect(wait.message.contains("It does not wait on the rest of its upstream, which is ahead: \(prices), which received "
            + "2 values (the last at @"), "\(wait.message)")
        #expect(wait.message.hasSuffix("Waits on: \(pairs) → \(quotes) → PassthroughSubject #_."), "\(wait.message)")
    }

    @Test func aReceiveThatNeverReturnedIsWhereTheChainEnds() throws {
        let wait = try waitOf("blocked-receive")
        let ticker = "Sink \"ticker\" #_ (\(try HangingChild.place(of: ".lifeline(\"ticker\")")))"
        #expect(wait.severity == "warning")
        #expect(wait.message.contains("\(ticker) cannot move: its receive(_:) began at @"), "\(wait.message)")
        #expect(wait.message.contains(" on main and never returned"), "\(wait.message)")
        #expect(wait.message.hasSuffix("Waits on: \(ticker)."), "\(wait.message)")
    }

    @Test(arguments: ["never-requested", "silent-subject", "unkept-promise", "zip-one-side", "blocked-receive"])
    func theSameProgramFixedHasNoWait(_ hangingCase: String) throws {
        let diagnosis = try diagnoseKilled(hangingCase, fixed: true)
        // Killed the same way: the log has no end record, so the check ran and found nothing.
        #expect(diagnosis.endIsKnown == false)
        #expect(diagnosis.events > 0)
        #expect(diagnosis.waits.isEmpty, "\(diagnosis.waits.map(\.message))")
        #expect(diagnosis.status == 0)
    }

    @Test func everyRunOfTheSameHangHasTheSameFingerprint() throws {
        let first = try waitOf("silent-subject")
        let second = try waitOf("silent-subject")
        #expect(first.fingerprint.count == 16)
        #expect(first.fingerprint == second.fingerprint)
        #expect(first.message == second.message)
        let other = try waitOf("unkept-promise")
        #expect(other.fingerprint != first.fingerprint)
    }

    @Test func theHungPipelineIsListedAsWaiting() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hung = folder.appendingPathComponent("hung.lifeline").path
        let fixed = folder.appendingPathComponent("fixed.lifeline").path
        try HangingChild.runAndKill("unkept-promise", fixed: false, log: hung)
        try HangingChild.runAndKill("unkept-promise", fixed: true, log: fixed)
        let place = try HangingChild.place(of: ".lifeline(\"profile\")")
        let hungRow = try LifelineExecutable.run(["pipelines", hung]).standardOutputText.split(separator: "\n")
            .first { $0.hasPrefix("P1 ") }
        let fixedRow = try LifelineExecutable.run(["pipelines", fixed]).standardOutputText.split(separator: "\n")
            .first { $0.hasPrefix("P1 ") }
        #expect(hungRow?.contains(place) == true && hungRow?.contains(" waiting ") == true, "\(hungRow ?? "no P1")")
        #expect(fixedRow?.contains(place) == true && fixedRow?.contains(" failed ") == true, "\(fixedRow ?? "no P1")")
    }
}
