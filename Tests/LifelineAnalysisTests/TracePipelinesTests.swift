import LifelineLog
import Testing
@testable import LifelineAnalysis

/// Hops grouped into pipelines: one per top-level subscribe, operator chains, flatMap inners
/// and a shared upstream attributed as documented, ids in order of first event.
@Suite struct TracePipelinesTests {
    /// `subject.map.sink` (P1), a flatMap whose inner publisher is subscribed while a value is
    /// delivered (P2), and a second subscriber of a shared subject fed from P1's upstream (P3).
    static func threePipelines() -> (trace: Trace, sinks: [TraceObjectID], inner: TraceObjectID) {
        var script = TraceScript()
        let subject = script.object("PassthroughSubject", .publisher)
        let map = script.object("Map", .publisher)
        let mapInner = script.object("Map.Inner", .subscriber)
        let conduit = script.object("Conduit", .subscription)
        let sink1 = script.object("Sink", .subscriber, label: "first")
        let share = script.object("Share", .publisher)
        let shareConduit = script.object("Share.Conduit", .subscription)
        let sink3 = script.object("Sink", .subscriber, source: "Badge.swift:12")
        let flatMap = script.object("FlatMap", .publisher)
        let outer = script.object("FlatMap.Outer", .subscriber)
        let source = script.object("Just", .publisher)
        let outerSubscription = script.object("Outer.Subscription", .subscription)
        let inner = script.object("FlatMap.Side", .subscriber)
        let future = script.object("Future", .publisher)
        let futureConduit = script.object("Future.Conduit", .subscription)
        let sink2 = script.object("Sink", .subscriber)

        // P1: subject → map → sink, subscribed from the program's code.
        script.subscribe(map, sink1) { script in
            script.subscribe(subject, mapInner) { script in
                script.receiveSubscription(mapInner, conduit) { script in
                    script.receiveSubscription(sink1, mapInner) { script in script.request(mapInner, .unlimited) }
                }
            }
        }
        // P2: a flatMap; its inner subscribes while the outer value is delivered.
        script.subscribe(flatMap, sink2) { script in
            script.subscribe(source, outer) { script in
                script.receiveSubscription(outer, outerSubscription) { script in
                    script.receiveSubscription(sink2, outer) { script in script.request(outer, .unlimited) }
                }
            }
        }
        script.value(outer) { script in
            script.subscribe(future, inner) { script in
                script.receiveSubscription(inner, futureConduit) { script in script.request(futureConduit, .unlimited) }
            }
        }
        script.value(inner) { script in script.value(sink2) }
        // P3: a second subscriber of the share, fed inside P1's deliveries.
        script.subscribe(share, sink3) { script in
            script.receiveSubscription(sink3, shareConduit) { script in script.request(shareConduit, .unlimited) }
        }
        script.value(mapInner) { script in
            script.value(sink1)
            script.value(sink3)
        }
        script.cancel(shareConduit)
        script.complete(mapInner) { script in script.complete(sink1) }
        return (script.trace(), [sink1, sink2, sink3], inner)
    }

    @Test func eachTopLevelSubscribeIsOnePipelineNumberedByFirstEvent() throws {
        let (trace, sinks, inner) = Self.threePipelines()
        let lifecycles = TraceLifecycles(trace)
        let pipelines = TracePipelines(lifecycles)
        #expect(pipelines.pipelines.map(\.id.description) == ["P1", "P2", "P3"])
        #expect(pipelines.pipelines.map { lifecycles.lifecycle($0.end).subscriber } == sinks)
        #expect(pipelines.pipelines.map(\.lifecycles.count) == [2, 3, 1])
        // The flatMap's inner hop belongs to the pipeline it was made in.
        let innerHop = try #require(lifecycles.lifecycles(ofSubscriber: inner).first)
        #expect(pipelines.pipeline(of: innerHop.id).id == Pipeline.ID(2))
        #expect(pipelines.pipelines.map(\.state) == [.finished, .live, .cancelled])
        #expect(pipelines.pipelines.map(\.values) == [1, 1, 1])
        #expect(pipelines.pipelines.map(\.name) == ["\"first\"", "Sink #16", "Badge.swift:12"])
        #expect(pipelines.pipelines(named: "first").map(\.id) == [Pipeline.ID(1)])
        #expect(pipelines.pipelines(named: "p3").map(\.id) == [Pipeline.ID(3)])
        #expect(pipelines.pipelines(named: "nothing").isEmpty)
    }

    @Test func aFindingGoesWithThePipelinesOfItsObjectsNotOfAnEventItCitesForItsMoment() throws {
        let (trace, sinks, _) = Self.threePipelines()
        let pipelines = TracePipelines(TraceLifecycles(trace))
        let third = try #require(pipelines.pipelines.last)
        // A finding about P1's sink that also cites P3's last event (the event a snapshot
        // followed), and one about objects no pipeline holds, citing P3's event.
        let moment = try #require(third.events.last)
        let aboutTheFirst = Diagnosis(code: "leaked-subscription", severity: .error, objects: [sinks[0]], evidence: [moment],
                                      message: "", fix: "")
        let aboutNoPipeline = Diagnosis(code: "retain-cycle", severity: .error, objects: [TraceObjectID(9_999)],
                                        evidence: [moment], message: "", fix: "")
        #expect(pipelines.pipelines(citedBy: [aboutTheFirst, aboutNoPipeline]) == [[Pipeline.ID(1)], [Pipeline.ID(3)]])
    }

    @Test func theListIsTheSameBytesEveryTime() {
        let trace = Self.threePipelines().trace
        let render = { () -> String in
            let lifecycles = TraceLifecycles(trace)
            let report = PipelineReport(trace: trace, pipelines: TracePipelines(lifecycles), diagnoses: TraceAnalyzer().diagnose(lifecycles))
            return report.renderText() + report.renderJSON()
        }
        #expect(render() == render())
        #expect(render().contains("P2  Sink #16"))
    }
}
