import LifelineLog
import Testing
@testable import LifelineAnalysis

/// What a demand-stalled finding says about the stall, from hand-written logs shaped like
/// photo-backup's upload worker: a hand-written subscriber at the end of a buffer that asks
/// for each next value once it is done with the previous one.
@Suite struct DemandStalledFindingTests {
    /// A worker subscribed to a buffer, which asks its source for 8 values; the buffer's stage
    /// (`Buffer.Inner`, made by the worker's subscribe, so placed at its line) is the worker's
    /// subscription. The worker asks for one value; the source sends `sent` values to the
    /// buffer, the first reaches the worker, the worker asks again and gets a second one and
    /// asks no more. The source then finishes when `finishing`.
    private func uploader(
        sent: Int, finishing: Bool, workerPlaced: Bool = false
    ) -> (script: TraceScript, worker: TraceObjectID, lastRequest: UInt64, lastValue: UInt64, returned: UInt64, lastUpstream: UInt64?, finished: UInt64?) {
        var script = TraceScript()
        let buffer = script.object("Buffer", .publisher)
        let worker = script.object("UploadWorker", .subscriber, source: workerPlaced ? "BackupService.swift:34" : nil)
        let inner = script.object("Buffer.Inner", .subscriber, source: "BackupService.swift:34")
        let scan = script.object("LibraryScan", .publisher)
        let scanSubscription = script.object("LibraryScan.Subscription", .subscription)
        script.subscribe(buffer, worker) {
            $0.subscribe(scan, inner) { $0.receiveSubscription(inner, scanSubscription) { $0.request(scanSubscription, .max(8)) } }
            $0.receiveSubscription(worker, inner) { $0.request(inner, .max(1)) }
        }
        var lastUpstream: UInt64?
        for index in 0..<sent {
            lastUpstream = script.nextSeq
            script.value(inner) { script in
                guard index == 0 else { return }
                script.value(worker)
            }
        }
        script.thread = TraceScript.worker
        let lastRequest = script.nextSeq
        script.request(inner, .max(1)) { $0.value(worker) }
        let lastValue = lastRequest + 1
        let returned = lastValue + 1
        script.thread = TraceScript.main
        var finished: UInt64?
        if finishing {
            finished = script.nextSeq
            script.complete(inner)
        }
        return (script, worker, lastRequest, lastValue, returned, lastUpstream, finished)
    }

    private func stalled(_ script: TraceScript) throws -> Diagnosis {
        let diagnoses = TraceAnalyzer().diagnose(script.trace())
        #expect(diagnoses.map(\.code) == ["demand-stalled"], "\(diagnoses.map(\.message))")
        return try #require(diagnoses.first)
    }

    @Test func itSaysWhichValueUsedTheLastDemandHowManyValuesWentNoFurtherAndThatUpstreamFinished() throws {
        let (script, _, lastRequest, lastValue, returned, lastUpstream, finished) = uploader(sent: 5, finishing: true, workerPlaced: true)
        let diagnosis = try stalled(script)
        let upstream = try #require(lastUpstream), completion = try #require(finished)
        #expect(diagnosis.message == "UploadWorker #2 (BackupService.swift:34) asked for 2 values, received all of them, and asked "
            + "for no more: the value delivered at @\(lastValue) used its last demand and receive(_:) returned .none (@\(returned)). "
            + "Upstream, Buffer.Inner #3 (BackupService.swift:34) received 5 values (the last at @\(upstream)), 3 more than reached "
            + "it, and .finished at @\(completion), which never reached it. Buffer.Inner #3 (BackupService.swift:34) was still open "
            + "with no outstanding demand when recording stopped, so none of that could arrive.")
        #expect(diagnosis.evidence.contains(upstream) && diagnosis.evidence.contains(completion))
        #expect(diagnosis.evidence.contains(lastValue) && diagnosis.evidence.contains(returned) && diagnosis.evidence.contains(lastRequest))
    }

    @Test func itSaysNothingOfUpstreamWhenUpstreamGotNoMoreAndDidNotFinish() throws {
        let (script, _, _, _, _, _, _) = uploader(sent: 1, finishing: false, workerPlaced: true)
        let diagnosis = try stalled(script)
        #expect(!diagnosis.message.contains("Upstream"), "\(diagnosis.message)")
        #expect(diagnosis.message.hasSuffix("when recording stopped, so nothing more could arrive."), "\(diagnosis.message)")
    }

    @Test func anUpstreamThatFinishedWithNoValuesLeftIsStillSaid() throws {
        let (script, _, _, _, _, _, finished) = uploader(sent: 1, finishing: true, workerPlaced: true)
        let diagnosis = try stalled(script)
        let completion = try #require(finished)
        #expect(diagnosis.message.contains("Upstream, Buffer.Inner #3 (BackupService.swift:34) received .finished at @\(completion), which never reached it."),
                "\(diagnosis.message)")
    }

    @Test func theFixOfASubscriberThatAsksForEachNextValueNamesItsLastRequestAndTheValueItDidNotAskAfter() throws {
        let (script, _, lastRequest, lastValue, _, _, _) = uploader(sent: 5, finishing: true, workerPlaced: true)
        let diagnosis = try stalled(script)
        #expect(diagnosis.fix == "UploadWorker #2 (BackupService.swift:34) asks for each next value with request(_:) once it is "
            + "done with the previous one (the last time at @\(lastRequest)), and did not after the value at @\(lastValue): call "
            + "request(_:) on every path that finishes with a value, failures included, or cancel the subscription once no more "
            + "values are wanted.")
    }

    /// A per-call snapshot can declare a hand-written subscriber before the recorder sees its
    /// subscribe, with no place; the finding still names it by the line that subscribed it.
    @Test func aSubscriberDeclaredWithoutAPlaceIsNamedByTheLineItsSubscribeMadeItsSubscriptionAt() throws {
        let (script, _, _, _, _, _, _) = uploader(sent: 5, finishing: true, workerPlaced: false)
        let diagnosis = try stalled(script)
        #expect(diagnosis.message.hasPrefix("UploadWorker #2 (BackupService.swift:34) asked for 2 values"), "\(diagnosis.message)")
        #expect(diagnosis.fix.hasPrefix("UploadWorker #2 (BackupService.swift:34) asks"), "\(diagnosis.fix)")
    }

    @Test func aSubscriptionFirstSeenOutsideTheSubscribeCallLendsNoPlace() throws {
        var script = TraceScript()
        let publisher = script.object("CustomPublisher", .publisher)
        let worker = script.object("UploadWorker", .subscriber)
        let conduit = script.object("Conduit", .subscription, source: "Elsewhere.swift:9")
        script.request(conduit, .max(1)) // seen first outside the worker's subscribe: made elsewhere
        script.subscribe(publisher, worker) { $0.receiveSubscription(worker, conduit) }
        let diagnoses = TraceAnalyzer().diagnose(script.trace())
        let stalled = try #require(diagnoses.first { $0.code == "demand-stalled" })
        #expect(stalled.message.hasPrefix("UploadWorker #2 never asked"), "\(stalled.message)")
    }
}
