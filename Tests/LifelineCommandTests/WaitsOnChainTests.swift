import Foundation
import Lifeline
import OpenCombineShim
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

    /// Checks the one `waits-on` finding of a hung case's log, which must be one without its end
    /// record: its `severity`, the chain of `stages` it ends with, each of the sentences or
    /// parts of one it is `saying`, and its evidence, events of the log in order.
    func expectWait(_ hangingCase: String, severity: String, chain stages: [String], saying parts: [String]) throws {
        let diagnosis = try diagnoseKilled(hangingCase, fixed: false)
        #expect(diagnosis.endIsKnown == false)
        #expect(diagnosis.waits.count == 1, "\(diagnosis.waits.map(\.message))")
        let wait = try #require(diagnosis.waits.first)
        #expect(wait.severity == severity)
        #expect(wait.message.hasSuffix("Waits on: \(stages.joined(separator: " → "))."), "\(wait.message)")
        for part in parts {
            #expect(wait.message.contains(part), "\(wait.message)")
        }
        #expect(!wait.evidence.isEmpty && wait.evidence.allSatisfy { $0 >= 1 && $0 <= diagnosis.events }, "\(wait.evidence)")
        #expect(wait.evidence == wait.evidence.sorted())
    }

    /// A stage as findings name it, ids left out: `Sink "profile" #_ (HangingCase.swift:37)`,
    /// placed at the child's line that holds `marker`.
    func stage(_ typeAndLabel: String, at marker: String) throws -> String {
        "\(typeAndLabel) #_ (\(try HangingChild.place(of: marker)))"
    }

    @Test func aSubscriberThatNeverAskedIsTheStageThatCannotMove() throws {
        let reader = try stage("HandWrittenSubscriber \"reply reader\"", at: ".lifeline(\"reply reader\")")
        let conduit = try stage("PassthroughSubject.Conduit", at: ".lifeline(\"reply reader\")")
        try expectWait("never-requested", severity: "warning", chain: [reader], saying: [
            "When the log ended, this pipeline was still open. \(reader) cannot move: it was handed \(conduit) at @",
            "and never asked for a value",
        ])
    }

    @Test func firstOnASubjectNobodySendsToWaitsOnTheSubject() throws {
        let sink = try stage("Sink \"first answer\"", at: ".lifeline(\"first answer\")")
        let first = try stage("First.Inner", at: ".lifeline(\"first answer\")")
        try expectWait("silent-subject", severity: "info", chain: [sink, first, "PassthroughSubject #_"], saying: [
            "When the log ended, \(sink) was still waiting: it asked First #_ for unlimited values and received none "
                + "(unlimited demand outstanding).",
            "PassthroughSubject #_ cannot move: nothing was sent to it since \(first) asked it for values at @",
        ])
    }

    @Test func aFutureWhosePromiseIsNeverCalledIsWhereTheChainEnds() throws {
        let sink = try stage("Sink \"profile\"", at: ".lifeline(\"profile\")")
        try expectWait("unkept-promise", severity: "info", chain: [sink, "Future #_"], saying: [
            "Future #_ cannot move: its promise had not been called when the log ended: it delivered nothing since \(sink) "
                + "asked it for values at @",
        ])
    }

    @Test func zipWaitsOnTheSideThatReceivedNothing() throws {
        let pairs = try stage("Sink \"priced quotes\"", at: ".lifeline(\"priced quotes\")")
        let quotes = try stage("ChildSubscriber \"quotes\"", at: ".zip(quotes.lifeline(\"quotes\"))")
        let prices = try stage("ChildSubscriber \"prices\"", at: "prices.lifeline(\"prices\")")
        try expectWait("zip-one-side", severity: "info", chain: [pairs, quotes, "PassthroughSubject #_"], saying: [
            "\(pairs) waits on \(quotes): it asked PassthroughSubject #_ for unlimited values and received none",
            "It does not wait on the rest of its upstream, which is ahead: \(prices), which received 2 values (the last at @",
        ])
    }

    @Test func aReceiveThatNeverReturnedIsWhereTheChainEnds() throws {
        let ticker = try stage("Sink \"ticker\"", at: ".lifeline(\"ticker\")")
        try expectWait("blocked-receive", severity: "warning", chain: [ticker], saying: [
            "\(ticker) cannot move: its receive(_:) began at @", " on main and never returned",
        ])
    }

    @Test func flatMapWaitsOnTheInnerPublisherThatNeverFinishes() throws {
        let responses = try stage("Sink \"responses\"", at: ".lifeline(\"responses\")")
        let outer = try stage("FlatMap.Outer", at: ".lifeline(\"responses\")")
        let side = try stage("FlatMap.Outer.Side", at: ".lifeline(\"responses\")")
        try expectWait("unfinished-inner", severity: "info", chain: [responses, outer, side, "AnyPublisher #_"], saying: [
            "\(outer) asked for 1 value, received all of them, and asks for no more while the publishers it subscribed for them run",
            "AnyPublisher #_ cannot move: it sent nothing after its last value at @",
            " and did not finish, though \(side) asked it for values at @",
        ])
    }

    @Test func receiveOnABlockedQueueHoldsWhatItWasSent() throws {
        let display = try stage("Sink \"display\"", at: ".lifeline(\"display\")")
        let receiveOn = try stage("ReceiveOn.Inner", at: ".lifeline(\"display\")")
        try expectWait("blocked-queue", severity: "info", chain: [display, receiveOn], saying: [
            "\(display) waits on \(receiveOn): it asked PassthroughSubject #_ for unlimited values and received 1 value",
            "\(receiveOn) cannot move on: it holds 1 value it received and did not pass on and the .finished it received at @",
            "the scheduler had not run them when the log ended",
        ])
    }

    @Test func aSubscriptionThatIgnoresAddedDemandIsNamedWithTheDemandItIgnored() throws {
        let reader = try stage("HandWrittenSubscriber \"countdown\"", at: ".lifeline(\"countdown\")")
        try expectWait("ignored-demand", severity: "info", chain: [reader, "Countdown #_"], saying: [
            "\(reader) was still waiting: it asked Countdown #_ for 2 values and received 1 value (demand for 1 more outstanding).",
            "Countdown #_ cannot move: it sent nothing after its last value at @",
            "Nothing came for the demand granted after its last value (.max(1) returned from receive(_:) at @",
        ])
    }

    @Test(arguments: HangingChild.cases)
    func theSameProgramFixedHasNoWait(_ hangingCase: String) throws {
        let diagnosis = try diagnoseKilled(hangingCase, fixed: true)
        // Killed the same way: the log has no end record, so the check ran and found nothing.
        #expect(diagnosis.endIsKnown == false)
        #expect(diagnosis.events > 0)
        #expect(diagnosis.waits.isEmpty, "\(diagnosis.waits.map(\.message))")
        #expect(diagnosis.status == 0)
    }

    @Test func aCleanStopSaysNothingNew() throws {
        // The silent subject's pipeline, still open when recording stops cleanly.
        var kept: AnyCancellable?
        let trace = try Lifeline.record {
            let answers = PassthroughSubject<Int, Never>()
            answers.send(42)
            kept = answers.first().lifeline("first answer").sink { _ in }
        }
        defer { kept?.cancel() }
        let log = try TraceLogFile.write(trace, named: "clean-stop.jsonl")
        let run = try LifelineExecutable.run(["diagnose", log, "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: run.standardOutput) as? [String: Any])
        #expect((document["trace"] as? [String: Any])?["endIsKnown"] as? Bool == true)
        let codes = (document["diagnoses"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(codes.isEmpty, "\(codes)")
        let row = try LifelineExecutable.run(["pipelines", log]).standardOutputText.split(separator: "\n")
            .first { $0.hasPrefix("P1 ") }
        #expect(row?.contains(" live ") == true, "\(row ?? "no P1")")
    }

    @Test func everyRunOfTheSameHangHasTheSameFingerprint() throws {
        let first = try #require(try diagnoseKilled("silent-subject", fixed: false).waits.first)
        let second = try #require(try diagnoseKilled("silent-subject", fixed: false).waits.first)
        #expect(first.fingerprint.count == 16)
        #expect(first.fingerprint == second.fingerprint)
        #expect(first.message == second.message)
        let other = try #require(try diagnoseKilled("unkept-promise", fixed: false).waits.first)
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
