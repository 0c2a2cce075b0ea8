import LifelineLog
import Testing
@testable import LifelineAnalysis

/// A pipeline the program subscribes from inside another pipeline's end, as a photo backup
/// does when it starts uploading once a `first(where:)` sink hears the server is reachable:
/// its end is the program's, and a stall there is found, with the default recording (the
/// subscriber's lifetime tracked) and when a per-call snapshot found the subscriber before it
/// was subscribed (its lifetime untracked, its life at stop read from the stop snapshot).
@Suite struct NestedPipelineTests {
    /// A sink that receives one value, and inside that delivery subscribes `worker` to a
    /// publisher; the worker asks for one value, receives it, and asks for no more.
    /// `relaying` makes the outer subscriber an operator's stage that passes values on to a
    /// sink below it, as `flatMap` is, instead of a sink; `inside: false` subscribes the worker
    /// from the program's code after that delivery instead.
    private func nested(
        workerTracked: Bool = true, relaying: Bool = false, inside: Bool = true
    ) -> (TraceScript, worker: TraceObjectID) {
        var script = TraceScript()
        let subject = script.object("CurrentValueSubject", .publisher)
        let outer = script.object(relaying ? "FlatMap.Inner" : "Sink", .subscriber, source: "BackupService.swift:27")
        let conduit = script.object("Conduit", .subscription)
        let scan = script.object("ReceiveOn", .publisher)
        let worker = script.object("UploadWorker", .subscriber, tracked: workerTracked)
        let inner = script.object("ReceiveOn.Inner", .subscription)
        script.subscribe(subject, outer) { $0.receiveSubscription(outer, conduit) { $0.request(conduit, .unlimited) } }
        if relaying {
            let sink = script.object("Sink", .subscriber)
            let flatMap = script.object("FlatMap", .publisher)
            script.subscribe(flatMap, sink) { $0.receiveSubscription(sink, outer) { $0.request(outer, .unlimited) } }
        }
        let subscribeWorker = { (script: inout TraceScript) in
            script.subscribe(scan, worker) { $0.receiveSubscription(worker, inner) { $0.request(inner, .max(1)) } }
        }
        if inside {
            script.value(outer, subscribeWorker)
        } else {
            script.value(outer)
            subscribeWorker(&script)
        }
        script.thread = TraceScript.worker
        script.value(worker)
        return (script, worker)
    }

    @Test func aStallInAPipelineSubscribedFromASinksClosureIsFound() throws {
        let (script, worker) = nested()
        let diagnoses = TraceAnalyzer().diagnose(script.trace())
        #expect(diagnoses.map(\.code) == ["demand-stalled"])
        #expect(diagnoses.first?.objects.first == worker)
    }

    @Test func aPipelineSubscribedFromASinksClosureThatLogsIntoAnotherPipelineIsAPipelineOfItsOwn() throws {
        // An activity log subscribed first; the worker's delivery sends a line into it.
        var script = TraceScript()
        let log = script.object("PassthroughSubject", .publisher)
        let logSink = script.object("Sink", .subscriber, source: "ActivityModel.swift:23")
        let logConduit = script.object("Conduit", .subscription)
        script.subscribe(log, logSink) { $0.receiveSubscription(logSink, logConduit) { $0.request(logConduit, .unlimited) } }
        let subject = script.object("CurrentValueSubject", .publisher)
        let outer = script.object("Sink", .subscriber, source: "BackupService.swift:27")
        let conduit = script.object("Conduit", .subscription)
        let scan = script.object("ReceiveOn", .publisher)
        let worker = script.object("UploadWorker", .subscriber, source: "BackupService.swift:34")
        let inner = script.object("ReceiveOn.Inner", .subscription)
        script.subscribe(subject, outer) { $0.receiveSubscription(outer, conduit) { $0.request(conduit, .unlimited) } }
        script.value(outer) {
            $0.subscribe(scan, worker) { $0.receiveSubscription(worker, inner) { $0.request(inner, .max(1)) } }
        }
        script.value(worker) { $0.value(logSink) }

        let lifecycles = TraceLifecycles(script.trace())
        let pipelines = TracePipelines(lifecycles)
        #expect(pipelines.pipelines.map(\.name) == ["ActivityModel.swift:23", "BackupService.swift:27", "BackupService.swift:34"])
        let stalled = try #require(TraceAnalyzer().diagnose(lifecycles).first { $0.code == "demand-stalled" })
        #expect(pipelines.pipelines(citedBy: stalled).map(\.description) == ["P3"])
    }

    @Test func aStageAnOperatorSubscribesWhileAValueReachesItIsNoPipelinesEnd() {
        let (script, _) = nested(relaying: true)
        #expect(!script.codes().contains("demand-stalled"), "\(script.codes())")
    }

    @Test func aSubscriberFirstFoundByASnapshotIsAliveAtStopWhenTheStopSnapshotShowsIt() throws {
        var (script, worker) = nested(workerTracked: false, inside: false)
        #expect(script.codes().isEmpty, "without a stop snapshot its life at stop is unknown")
        script.snapshots = [TraceSnapshot(
            index: 1, seq: script.nextSeq - 1, label: "stop", reason: .stop,
            nodes: [TraceSnapshot.Node(id: worker, kind: .subscriber, retainCounts: nil, alive: true)], edges: []
        )]
        let diagnoses = TraceAnalyzer().diagnose(script.trace())
        #expect(diagnoses.map(\.code) == ["demand-stalled"])
    }

    @Test func aSubscriberFirstFoundByASnapshotThatTheStopSnapshotDoesNotShowIsNotStalled() {
        var (script, _) = nested(workerTracked: false, inside: false)
        script.snapshots = [TraceSnapshot(index: 1, seq: script.nextSeq - 1, label: "stop", reason: .stop, nodes: [], edges: [])]
        #expect(script.codes().isEmpty, "\(script.codes())")
    }
}
