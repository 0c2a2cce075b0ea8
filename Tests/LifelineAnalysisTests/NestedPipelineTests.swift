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

    /// The download center's catalog sink starts the large file from its closure: a progress
    /// sink behind `receive(on:)` that has received nothing yet, then the chunk writer, whose
    /// deliveries send progress into the subject the progress sink reads. Each is a pipeline of
    /// its own: neither the progress sink (which received nothing) nor the writer (whose sends
    /// reach it) is downstream of the catalog.
    @Test func pipelinesSubscribedFromASinksClosureAreTheirOwnEvenBeforeTheyReceiveAnything() throws {
        var script = TraceScript()
        let catalog = script.object("CurrentValueSubject", .publisher)
        let catalogSink = script.object("Sink", .subscriber, source: "DownloadCenterApp.swift:55")
        let catalogConduit = script.object("Conduit", .subscription)
        let progress = script.object("PassthroughSubject", .publisher)
        let receiveOn = script.object("ReceiveOn", .publisher)
        let receiveOnInner = script.object("ReceiveOn.Inner", .subscriber)
        let progressConduit = script.object("Conduit", .subscription)
        let progressSink = script.object("Sink", .subscriber, source: "TransferListModel.swift:46")
        let download = script.object("ChunkedDownload", .publisher)
        let writer = script.object("ChunkWriter", .subscriber, source: "TransferListModel.swift:53")
        let fetch = script.object("ChunkFetch", .subscription)
        script.subscribe(catalog, catalogSink) {
            $0.receiveSubscription(catalogSink, catalogConduit) { $0.request(catalogConduit, .unlimited) }
        }
        script.value(catalogSink) { script in
            script.subscribe(receiveOn, progressSink) { script in
                script.subscribe(progress, receiveOnInner) { script in
                    script.receiveSubscription(receiveOnInner, progressConduit) { script in
                        script.receiveSubscription(progressSink, receiveOnInner) { $0.request(receiveOnInner, .unlimited) }
                    }
                }
            }
            script.subscribe(download, writer) { $0.receiveSubscription(writer, fetch) { $0.request(fetch, .max(1)) } }
        }
        script.thread = TraceScript.worker
        script.value(writer) { $0.value(receiveOnInner) }

        let lifecycles = TraceLifecycles(script.trace())
        let pipelines = TracePipelines(lifecycles)
        #expect(pipelines.pipelines.map(\.name) == [
            "DownloadCenterApp.swift:55", "TransferListModel.swift:46", "TransferListModel.swift:53",
        ])
        let writerHop = try #require(lifecycles.lifecycles(ofSubscriber: writer).first)
        #expect(pipelines.pipeline(of: writerHop.id).id.description == "P3")
    }

    /// An inner publisher that an operator's stage subscribes while a value reaches it, and that
    /// never delivers, still belongs to the pipeline it was made in.
    @Test func anInnerPublisherThatNeverDeliveredJoinsThePipelineOfTheOperatorThatMadeIt() throws {
        var script = TraceScript()
        let subject = script.object("PassthroughSubject", .publisher)
        let outer = script.object("FlatMap.Outer", .subscriber)
        let conduit = script.object("Conduit", .subscription)
        let flatMap = script.object("FlatMap", .publisher)
        let sink = script.object("Sink", .subscriber, source: "Search.swift:20")
        let future = script.object("Future", .publisher)
        let side = script.object("FlatMap.Side", .subscriber)
        let futureConduit = script.object("Future.Conduit", .subscription)
        script.subscribe(flatMap, sink) { script in
            script.subscribe(subject, outer) { script in
                script.receiveSubscription(outer, conduit) { script in
                    script.receiveSubscription(sink, outer) { $0.request(outer, .unlimited) }
                }
            }
        }
        script.value(outer) { script in
            script.subscribe(future, side) { $0.receiveSubscription(side, futureConduit) { $0.request(futureConduit, .unlimited) } }
        }

        let lifecycles = TraceLifecycles(script.trace())
        let pipelines = TracePipelines(lifecycles)
        #expect(pipelines.pipelines.map(\.name) == ["Search.swift:20"])
        let sideHop = try #require(lifecycles.lifecycles(ofSubscriber: side).first)
        #expect(pipelines.pipeline(of: sideHop.id).id.description == "P1")
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
