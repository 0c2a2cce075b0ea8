import LifelineLog
import Testing
@testable import LifelineAnalysis

/// Findings and pipelines name things by the program's own places: an operator's object the
/// recorder met without a place is named by the line that subscribed its pipeline, and
/// pipelines that one line subscribed several times are told apart by their order.
@Suite struct PipelineNamingTests {
    /// `store.articles.filter { }.sink { }` on an `autoconnect()`ed publisher, as the news
    /// reader writes it: the `Filter` hands the `sink` the value-type subscription
    /// `autoconnect()` made, which the recorder declares with no place of its own, and which is
    /// then cancelled.
    @Test func anOperatorsSubscriptionWithoutAPlaceIsNamedByTheLineThatSubscribedItsPipeline() {
        var script = TraceScript()
        let filter = script.object("Filter", .publisher, tracked: false)
        let sink = script.object("Sink", .subscriber, source: "HomeScreenModel.swift:33")
        let autoconnect = script.object("Autoconnect", .publisher, tracked: false)
        let filterInner = script.object("Filter.Inner", .subscriber, source: "HomeScreenModel.swift:33", tracked: false)
        let sideEffect = script.object("Autoconnect.SideEffectSubscription", .subscription, tracked: false)
        script.subscribe(filter, sink) { script in
            script.subscribe(autoconnect, filterInner) { script in
                script.receiveSubscription(filterInner, sideEffect) { script in
                    script.receiveSubscription(sink, sideEffect) { $0.request(sideEffect, .unlimited) }
                }
            }
        }
        script.cancel(sideEffect)

        let lifecycles = TraceLifecycles(script.trace())
        #expect(lifecycles.name(sideEffect) == "Autoconnect.SideEffectSubscription #5 (HomeScreenModel.swift:33)")
        #expect(lifecycles.name(sink) == "Sink #2 (HomeScreenModel.swift:33)")
        // A publisher can be subscribed from many lines: it is named by none of them.
        #expect(lifecycles.name(autoconnect) == "Autoconnect #3")
    }

    /// `Subscriptions.empty` is one value to every subscriber that gets it: a subscription two
    /// subscribes at two lines got is named by neither line.
    @Test func aSubscriptionThatSeveralSubscribesGotIsNamedByNoneOfTheirLines() {
        var script = TraceScript()
        let empty = script.object("_EmptySubscription", .subscription, tracked: false)
        var sinks: [TraceObjectID] = []
        for line in [117, 132] {
            let publisher = script.object("BusyPublisher", .publisher, tracked: false)
            let sink = script.object("Sink", .subscriber, source: "Schedulers.swift:\(line)")
            script.subscribe(publisher, sink) { $0.receiveSubscription(sink, empty) { $0.request(empty, .unlimited) } }
            sinks.append(sink)
        }
        let lifecycles = TraceLifecycles(script.trace())
        #expect(lifecycles.name(empty) == "_EmptySubscription #1")
        #expect(sinks.map(lifecycles.name) == ["Sink #3 (Schedulers.swift:117)", "Sink #5 (Schedulers.swift:132)"])
    }

    /// A function that subscribes a row, called for two rows: both pipelines were made at
    /// `Rows.swift:63`, and the second asks for no values (`request(.none)`).
    private func twoRowsFromOneLine() -> Trace {
        var script = TraceScript()
        for row in 0..<2 {
            let subject = script.object("PassthroughSubject", .publisher)
            let sink = script.object("Sink", .subscriber, source: "Rows.swift:63")
            let conduit = script.object("Conduit", .subscription, source: "Rows.swift:63")
            script.subscribe(subject, sink) { script in
                script.receiveSubscription(sink, conduit) { $0.request(conduit, .unlimited) }
            }
            if row == 1 { script.request(conduit, .none) }
        }
        let other = script.object("PassthroughSubject", .publisher)
        let otherSink = script.object("Sink", .subscriber, source: "Rows.swift:70")
        let otherConduit = script.object("Conduit", .subscription, source: "Rows.swift:70")
        script.subscribe(other, otherSink) { $0.receiveSubscription(otherSink, otherConduit) { $0.request(otherConduit, .unlimited) } }
        return script.trace()
    }

    @Test func pipelinesSubscribedAtTheSameLineAreToldApartByTheirOrder() {
        let pipelines = TracePipelines(TraceLifecycles(twoRowsFromOneLine()))
        #expect(pipelines.pipelines.map(\.name) == ["Rows.swift:63 (1st of 2)", "Rows.swift:63 (2nd of 2)", "Rows.swift:70"])
        #expect(pipelines.pipelines.map(\.sourceLocation) == ["Rows.swift:63", "Rows.swift:63", "Rows.swift:70"])
        #expect(pipelines.pipelines.map { $0.repetition?.description } == ["1st of 2", "2nd of 2", nil])
        // The line names both; the name one.
        #expect(pipelines.pipelines(named: "Rows.swift:63").map(\.id.description) == ["P1", "P2"])
        #expect(pipelines.pipelines(named: "Rows.swift:63 (2nd of 2)").map(\.id.description) == ["P2"])
    }

    @Test func aFindingsHeadingSaysWhichOfTheSubscriptionsAtItsLineItIsAbout() throws {
        let trace = twoRowsFromOneLine()
        let lifecycles = TraceLifecycles(trace)
        let diagnoses = TraceAnalyzer().diagnose(lifecycles)
        #expect(diagnoses.map(\.code) == ["zero-demand-request"])
        let report = TextDiagnosisReport(trace: trace, diagnoses: diagnoses, pipelines: TracePipelines(lifecycles)).render()
        #expect(report.contains("\nPassthroughSubject #4 → Conduit #6 → Sink #5, subscribed at Rows.swift:63 (2nd of 2 made there, P2)\n"), "\(report)")
        let table = PipelineReport(trace: trace, pipelines: TracePipelines(lifecycles), diagnoses: diagnoses).renderText()
        #expect(table.contains("P2  Rows.swift:63 (2nd of 2)"), "\(table)")
    }

    @Test func ordinalsReadAsEnglish() {
        #expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111].map(Pipeline.Repetition.ordinal)
            == ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th"])
    }
}
