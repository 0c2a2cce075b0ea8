import LifelineLog
import Testing
@testable import LifelineAnalysis

@Suite struct ReportTests {
    /// A labelled subscriber that asks for `.none` once: one diagnosis with one event.
    private func zeroRequest() -> Trace {
        var script = TraceScript()
        let p = script.object("PassthroughSubject", .publisher)
        let x = script.object("Sink", .subscriber, label: "feed", source: "Feed.swift:12")
        let s = script.object("PassthroughSubject.Conduit", .subscription, tracked: false)
        script.subscribe(p, x) { $0.receiveSubscription(x, s) { $0.request(s, .unlimited) } }
        script.thread = TraceScript.worker
        script.request(s, .none) // 7, 8
        return script.trace()
    }

    @Test func theTextReportGroupsBySubscriptionAndQuotesTheEvidence() {
        let trace = Stories.forgottenSubscription().script.trace()
        let text = TextDiagnosisReport(trace: trace, diagnoses: TraceAnalyzer().diagnose(trace)).render()
        #expect(text == """
            1 error in 1 subscription.
            note: retain cycles and leaks at stop were not checked (retain-cycle, leaked-subscription at stop): the log has no ownership snapshot; take one with Lifeline.snapshot(_:) before recording stops, or record with RecordingOptions(snapshots: .atStop), the default.

            URLSessionPublisher #1 → URLSessionSubscription #3 → URLSessionSubscriber #2
              error subscription-not-retained: URLSessionSubscription #3 was deallocated right after URLSessionSubscriber #2's receive(subscription:) returned, and nothing had completed or cancelled it: nothing kept a strong reference to the subscription, so no value or completion can arrive.
                @2  main  URLSessionSubscriber #2.receive(subscription: URLSessionSubscription #3) begins
                @5  main  URLSessionSubscriber #2.receive(subscription: URLSessionSubscription #3) returns
                @7  main  URLSessionSubscription #3 is found deallocated (last seen alive at @5)
                fix: Keep a strong reference to the subscription while it runs: have URLSessionSubscriber #2 store it in receive(subscription:), or return it as a Cancellable (AnyCancellable) for the owner to keep, and cancel it when done.
                fingerprint: 8b3aa8ade9442f7d

            """)
    }

    @Test func theTextReportSaysWhatADamagedLogCannotShow() {
        let trace = Stories.droppedSink().script.trace(closed: false)
        let text = TextDiagnosisReport(trace: trace, diagnoses: TraceAnalyzer().diagnose(trace)).render()
        #expect(text == """
            note: the log has no end record: the recorded process stopped without stopping the recording.
            note: checks about the end of the recording (demand-stalled, leaked-subscription) were skipped.
            1 warning in 1 subscription.
            note: retain cycles and leaks at stop were not checked (retain-cycle, leaked-subscription at stop): the log has no ownership snapshot; take one with Lifeline.snapshot(_:) before recording stops, or record with RecordingOptions(snapshots: .atStop), the default.

            PassthroughSubject #1 → PassthroughSubject.Conduit #3 → Sink #2
              warning cancelled-immediately: PassthroughSubject.Conduit #3 was cancelled right after Sink #2 subscribed to PassthroughSubject #1, before any value arrived: the subscription was dropped as soon as it was made. (The log does not say who cancelled, so this is judged by the cancel following the subscribe directly; a deliberate cancel() looks the same.)
                @1  main  PassthroughSubject #1.subscribe(Sink #2) begins
                @2  main  Sink #2.receive(subscription: PassthroughSubject.Conduit #3) begins
                @6  main  PassthroughSubject #1.subscribe(Sink #2) returns
                @7  main  PassthroughSubject.Conduit #3.cancel() begins
                fix: Keep the AnyCancellable that sink or assign returns for as long as you want values: store it in a property or with .store(in: &cancellables); `_ = publisher.sink { }` and a local set cancel when the function returns.
                fingerprint: d6833b262c865ad8

            """)
    }

    @Test func aCleanTraceSaysSoAndWhatItCouldNotCheck() {
        let trace = Stories.keptSink().script.trace()
        #expect(TextDiagnosisReport(trace: trace, diagnoses: []).render() == """
            No lifecycle problems found in 10 events.
            note: retain cycles and leaks at stop were not checked (retain-cycle, leaked-subscription at stop): the log has no ownership snapshot; take one with Lifeline.snapshot(_:) before recording stops, or record with RecordingOptions(snapshots: .atStop), the default.

            """)
    }

    @Test func aTraceWithASnapshotChecksRetainCycles() {
        var script = Stories.keptSink().script
        script.snapshots = [TraceSnapshot(index: 1, seq: 10, label: "stop", reason: .stop, nodes: [], edges: [])]
        let trace = script.trace()
        #expect(TextDiagnosisReport(trace: trace, diagnoses: []).render() == "No lifecycle problems found in 10 events.\n")
        #expect(JSONDiagnosisReport(trace: trace, diagnoses: []).render().contains("""
              "summary" : {
                "errors" : 0,
                "info" : 0,
                "skipped" : [

                ],
            """))
    }

    @Test func longEvidenceKeepsItsFirstAndLastLines() throws {
        var script = TraceScript()
        let p = script.object("CustomPublisher", .publisher)
        let x = script.object("CustomSubscriber", .subscriber)
        let s = script.object("CustomSubscription", .subscription)
        script.subscribe(p, x) { $0.receiveSubscription(x, s) }
        for _ in 0..<12 { script.request(s, .max(1)) } // requests begin at 5, 7, …, 27
        for _ in 0..<13 { script.value(x) } // the 13th value begins at 53
        script.complete(x)
        let trace = script.trace()
        let diagnoses = TraceAnalyzer().diagnose(trace)
        #expect(diagnoses.map(\.code) == ["demand-exceeded"])
        let lines = TextDiagnosisReport(trace: trace, diagnoses: diagnoses).render().split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("    @") }.map { String($0.split(separator: " ")[0]) } == [
            "@5", "@7", "@9", "@11", "@13", "@23", "@25", "@27", "@53",
        ])
        #expect(lines.contains("    … 4 more events"))
    }

    /// `#N` is always an object and `@N` always an event: a reader tells `Sink #2` from the
    /// timeline's second event without knowing the ids.
    @Test func eventsAndObjectsAreNumberedApart() throws {
        let trace = Stories.forgottenSubscription().script.trace()
        let text = TextDiagnosisReport(trace: trace, diagnoses: TraceAnalyzer().diagnose(trace)).render()
        let objects = try Regex("#([0-9]+)"), events = try Regex("@([0-9]+)")
        let objectNumbers = text.matches(of: objects).compactMap { UInt64($0.output[1].substring ?? "") }
        let eventNumbers = text.matches(of: events).compactMap { UInt64($0.output[1].substring ?? "") }
        #expect(!objectNumbers.isEmpty && !eventNumbers.isEmpty)
        #expect(objectNumbers.allSatisfy { trace.object(TraceObjectID($0)) != nil }, "\(text)")
        #expect(eventNumbers.allSatisfy { number in trace.events.contains { $0.seq == number } }, "\(text)")
        // Every timeline line starts with its event.
        let timeline = text.split(separator: "\n").filter {
            $0.hasPrefix("    ") && !$0.hasPrefix("    fix:") && !$0.hasPrefix("    fingerprint:") && !$0.hasPrefix("    …")
        }
        #expect(!timeline.isEmpty && timeline.allSatisfy { $0.dropFirst(4).hasPrefix("@") }, "\(text)")
    }

    @Test func theJSONReportHasAStableShape() {
        var script = TraceScript()
        let p = script.object("PassthroughSubject", .publisher)
        let x = script.object("Sink", .subscriber, label: "feed", source: "Feed.swift:12")
        let s = script.object("PassthroughSubject.Conduit", .subscription, tracked: false)
        script.subscribe(p, x) { $0.receiveSubscription(x, s) { $0.request(s, .unlimited) } }
        script.thread = TraceScript.worker
        script.request(s, .none) // 7, 8
        let trace = script.trace()
        let json = JSONDiagnosisReport(trace: trace, diagnoses: TraceAnalyzer().diagnose(trace)).render()
        #expect(json == """
            {
              "diagnoses" : [
                {
                  "code" : "zero-demand-request",
                  "evidence" : [
                    {
                      "kind" : "request",
                      "phase" : "begin",
                      "seq" : 7,
                      "text" : "PassthroughSubject.Conduit #3.request(.none) begins",
                      "thread" : "worker"
                    }
                  ],
                  "fingerprint" : "1d421150193cf574",
                  "fix" : "Request at least .max(1), or make no request when no more values are wanted; many subscriptions treat a request for .none as a programming error and trap.",
                  "hop" : {
                    "publisher" : {
                      "id" : 1,
                      "role" : "publisher",
                      "shortType" : "PassthroughSubject",
                      "type" : "App.PassthroughSubject"
                    },
                    "subscriber" : {
                      "id" : 2,
                      "label" : "feed",
                      "role" : "subscriber",
                      "shortType" : "Sink",
                      "source" : "Feed.swift:12",
                      "type" : "App.Sink"
                    },
                    "subscription" : {
                      "id" : 3,
                      "role" : "subscription",
                      "shortType" : "PassthroughSubject.Conduit",
                      "type" : "App.PassthroughSubject.Conduit"
                    }
                  },
                  "message" : "request(.none) was called on PassthroughSubject.Conduit #3 (Feed.swift:12) by Sink \\"feed\\" #2 (Feed.swift:12): a request must ask for at least one value.",
                  "objects" : [
                    {
                      "id" : 3,
                      "role" : "subscription",
                      "shortType" : "PassthroughSubject.Conduit",
                      "type" : "App.PassthroughSubject.Conduit"
                    },
                    {
                      "id" : 2,
                      "label" : "feed",
                      "role" : "subscriber",
                      "shortType" : "Sink",
                      "source" : "Feed.swift:12",
                      "type" : "App.Sink"
                    }
                  ],
                  "severity" : "error"
                }
              ],
              "format" : "lifeline-diagnoses",
              "summary" : {
                "errors" : 1,
                "info" : 0,
                "skipped" : [
                  {
                    "checks" : [
                      "retain-cycle",
                      "leaked-subscription at stop"
                    ],
                    "reason" : "the log has no ownership snapshot",
                    "remedy" : "take one with Lifeline.snapshot(_:) before recording stops, or record with RecordingOptions(snapshots: .atStop), the default"
                  }
                ],
                "warnings" : 0
              },
              "trace" : {
                "damage" : [

                ],
                "endIsKnown" : true,
                "events" : 8,
                "process" : "script"
              },
              "version" : 1
            }

            """)
    }

    @Test func theSameTraceGivesTheSameBytes() {
        let first = Stories.forgottenSubscription().script.trace()
        let second = Stories.forgottenSubscription().script.trace()
        let render = { (trace: Trace) in
            JSONDiagnosisReport(trace: trace, diagnoses: TraceAnalyzer().diagnose(trace)).render()
                + TextDiagnosisReport(trace: trace, diagnoses: TraceAnalyzer().diagnose(trace)).render()
        }
        #expect(render(first) == render(second))
    }

    @Test func errorsFailTheRunAndStrictMakesWarningsFailToo() {
        let warning = Diagnosis(code: "demand-stalled", severity: .warning, objects: [], evidence: [1], message: "m", fix: "f")
        let error = Diagnosis(code: "demand-exceeded", severity: .error, objects: [], evidence: [1], message: "m", fix: "f")
        let info = Diagnosis(code: "note", severity: .info, objects: [], evidence: [1], message: "m", fix: "f")
        #expect(ExitStatusPolicy().exitStatus(for: []) == 0)
        #expect(ExitStatusPolicy().exitStatus(for: [warning, info]) == 0)
        #expect(ExitStatusPolicy().exitStatus(for: [warning, error]) == 1)
        #expect(ExitStatusPolicy(strict: true).exitStatus(for: [info]) == 0)
        #expect(ExitStatusPolicy(strict: true).exitStatus(for: [warning]) == 1)
    }
}
