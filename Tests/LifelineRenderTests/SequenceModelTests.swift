import LifelineAnalysis
import LifelineLog
import Testing
@testable import LifelineRender

/// The participant and hop model every sequence renderer shares.
@Suite struct SequenceModelTests {
    private func laneIDs(_ trace: Trace) -> [UInt64] {
        SequenceModel(trace: trace, diagnoses: [], folding: true).lanes.map(\.object.id.rawValue)
    }

    private func folds(_ model: SequenceModel) -> [RepeatedRun] {
        model.steps.compactMap { if case .fold(let run) = $0.content { run } else { nil } }
    }

    private func valueCalls(_ model: SequenceModel) -> [UInt64] {
        model.steps.compactMap { step in
            if case .call(_, _, let kind, _) = step.content, kind.isValue { step.seq } else { nil }
        }
    }

    @Test func lanesRunUpstreamToDownstreamThroughAnObjectThatPlaysTwoRoles() {
        // Subject, its Conduit, the Map publisher, Map.Inner (subscriber upstream and
        // subscription downstream), the Sink.
        #expect(laneIDs(SampleTraces.mapChain) == [1, 5, 2, 4, 3])
    }

    @Test func aSecondSubscriberFollowsTheFirstSubscribersChain() {
        #expect(laneIDs(SampleTraces.twoSubscribers) == [1, 3, 2, 5, 4])
    }

    @Test func aCycleOfSubscriptionsStillGivesEveryObjectOneLane() {
        var script = TraceScript()
        let first = script.object(1, .publisher, "A"), second = script.object(2, .publisher, "B")
        script.call(.subscribe(publisher: first, subscriber: second))
        script.call(.subscribe(publisher: second, subscriber: first))
        #expect(laneIDs(script.trace).sorted() == [1, 2])
    }

    @Test func nestedCallsOnOneObjectStackTheirActivations() {
        let model = SequenceModel(trace: SampleTraces.mapChain, diagnoses: [], folding: true)
        let inner = model.lanes.firstIndex { $0.object.id == TraceObjectID(4) }!
        let depths = model.steps.compactMap { step -> Int? in
            if case .call(_, inner, _, let depth) = step.content, step.seq! <= 12 { depth } else { nil }
        }
        // receive(subscription:) opens Map.Inner's activation; the request the Sink makes
        // inside it opens a second one on top.
        #expect(depths == [0, 1])
    }

    @Test(arguments: [SampleTraces.mapChain, SampleTraces.receiveOnQueue, SampleTraces.thousandValues, SampleTraces.damaged])
    func everyActivationThatOpensCloses(_ trace: Trace) {
        for folding in [true, false] {
            var open: [Int: Int] = [:]
            for step in SequenceModel(trace: trace, diagnoses: [], folding: folding).steps {
                switch step.content {
                case .call(_, let callee, _, let depth):
                    #expect(depth == open[callee, default: 0])
                    open[callee, default: 0] += 1
                case .callReturn(_, let callee, _, _, _):
                    open[callee, default: 0] -= 1
                    #expect(open[callee]! >= 0)
                default: break
                }
            }
            if trace.events.last?.phase != .begin { #expect(open.values.allSatisfy { $0 == 0 }) }
        }
    }

    @Test func aCutShortLogKeepsItsOrphanReturnAndClosesTheCallThatNeverReturned() {
        let model = SequenceModel(trace: SampleTraces.damaged, diagnoses: [], folding: false)
        guard case .call(_, _, .value("lost"), 0) = model.steps[0].content,
              case .callReturn(_, _, _, _, .max(1)) = model.steps[1].content else {
            Issue.record("the orphan return is not shown as a call that returned at once: \(model.steps.prefix(2))")
            return
        }
        // The request (seq 4) never returned; subscribe's return (seq 5) closes it, then the
        // receive(subscription:) call, then itself.
        let closes = model.steps.compactMap { if case .callReturn = $0.content { $0.seq } else { nil as UInt64?? } }
        #expect(closes == [1, nil, nil, 5])
    }

    @Test func aLongRunOfValuesFoldsToOneRowKeepingTheFirstAndLast() {
        let model = SequenceModel(trace: SampleTraces.thousandValues, diagnoses: [], folding: true)
        #expect(folds(model) == [RepeatedRun(repeats: 998, noun: "values", seqs: 9...2004, lanes: 1...2)])
        #expect(folds(model).first?.summary == "× 998 values (@9–@2004)")
        #expect(valueCalls(model) == [7, 2005])
    }

    @Test func foldingOffShowsEveryValue() {
        let model = SequenceModel(trace: SampleTraces.thousandValues, diagnoses: [], folding: false)
        #expect(folds(model).isEmpty)
        #expect(valueCalls(model).count == 1_000)
    }

    @Test func anEventADiagnosisCitesIsNeverFoldedAway() {
        let diagnosis = Diagnosis(code: "example", severity: .info, objects: [TraceObjectID(2)], evidence: [1_001],
                                  message: "The 498th value.", fix: "None needed.")
        let model = SequenceModel(trace: SampleTraces.thousandValues, diagnoses: [diagnosis], folding: true)
        #expect(valueCalls(model).contains(1_001))
        #expect(folds(model).count == 2)
        let cited = model.steps.first { $0.seq == 1_001 }
        #expect(cited?.citedBy == [1])
        let noteIndex = model.steps.firstIndex { if case .note = $0.content { true } else { false } }
        let citedIndex = model.steps.firstIndex { $0.seq == 1_001 }
        // Event 1_001 begins a delivery: the note follows that delivery's return, so that it
        // does not stretch the delivery's activation.
        let returnIndex = citedIndex.flatMap { index in
            model.steps[(index + 1)...].firstIndex { if case .callReturn = $0.content { true } else { false } }
        }
        #expect(returnIndex == citedIndex.map { $0 + 1 })
        #expect(noteIndex == returnIndex.map { $0 + 1 }, "the note follows the return of the call its last evidence event begins")
    }

    @Test func valuesHoppingThreadsFoldAsAnAlternatingPattern() {
        let model = SequenceModel(trace: SampleTraces.threadHops(40), diagnoses: [], folding: true)
        #expect(folds(model).map(\.repeats) == [38])
        #expect(folds(model).first?.noun == "values")
        #expect(model.contexts.map(\.name) == ["main", "com.example.feed"])
    }

    @Test func aShortRunIsNotFolded() {
        let model = SequenceModel(trace: SampleTraces.threadHops(4), diagnoses: [], folding: true)
        #expect(folds(model).isEmpty)
    }

    /// OpenCombine's `filter` hands its downstream the subscription it got from the subject.
    /// A value the filter passes on is drawn from the filter, not from the subject's conduit;
    /// folded, the conduit stays on the subject's lane, so the subject's value is drawn going
    /// into the operators (it vanished inside them) and the passed-on one is not drawn twice.
    @Test func aSubscriptionAnOperatorPassesOnStaysItsSources() {
        var script = TraceScript()
        let subject = script.object(1, .publisher, "PassthroughSubject", tracked: false)
        let conduit = script.object(2, .subscription, "PassthroughSubject.Conduit")
        let filter = script.object(3, .publisher, "Publishers.Filter", tracked: false)
        let filtering = script.object(4, .subscriber, "Publishers.Filter.Inner")
        let sink = script.object(5, .subscriber, "Sink", label: "feed")
        script.call(.subscribe(publisher: filter, subscriber: sink)) {
            $0.call(.subscribe(publisher: subject, subscriber: filtering)) {
                $0.call(.receiveSubscription(subscriber: filtering, subscription: conduit)) {
                    $0.call(.receiveSubscription(subscriber: sink, subscription: conduit)) {
                        $0.call(.request(subscription: conduit, demand: .unlimited))
                    }
                }
            }
        }
        script.call(.value(subscriber: filtering, returnedDemand: nil, value: "1")) {
            $0.call(.value(subscriber: sink, returnedDemand: nil, value: "1")) {
                // The sink's closure sends into the subject again: the conduit delivers.
                $0.call(.value(subscriber: filtering, returnedDemand: nil, value: "2"))
            }
        }
        let trace = script.trace
        func valueCalls(_ model: SequenceModel) -> [(caller: Int?, callee: Int)] {
            model.steps.compactMap { step in
                guard case .call(let caller, let callee, .value, _) = step.content else { return nil }
                return (caller, callee)
            }
        }
        func lane(_ model: SequenceModel, _ object: TraceObjectID) -> Int? {
            model.lanes.firstIndex { lane in lane.object.id == object || lane.members.contains { $0.id == object } }
        }

        let plain = SequenceModel.fitted(trace, diagnoses: [], options: SequenceDiagramOptions(collapse: .none))
        let plainCalls = valueCalls(plain)
        #expect(plainCalls.map(\.caller) == [lane(plain, conduit), lane(plain, filtering), lane(plain, conduit)])
        #expect(plainCalls.map(\.callee) == [lane(plain, filtering), lane(plain, sink), lane(plain, filtering)])

        let folded = SequenceModel.fitted(trace, diagnoses: [], options: SequenceDiagramOptions(collapse: .operators))
        #expect(lane(folded, conduit) == lane(folded, subject))
        let foldedCalls = valueCalls(folded)
        #expect(foldedCalls.map(\.caller) == [lane(folded, subject), lane(folded, filtering), lane(folded, subject)])
        #expect(foldedCalls.map(\.callee) == [lane(folded, filtering), lane(folded, sink), lane(folded, filtering)])
    }

    /// A `Deferred` passes its subscriber on to the `Future` it makes, which hands out the
    /// subscription: the `Future`'s value is drawn coming from the `Future`'s lane, where it
    /// was drawn inside the folded operators (a `flatMap` of deferred futures showed its
    /// values reaching the sink from nowhere).
    @Test func aFuturesSubscriptionStaysOnItsLaneBehindADeferred() throws {
        var script = TraceScript()
        let flatMap = script.object(1, .publisher, "FlatMap", tracked: false)
        let outer = script.object(2, .subscriber, "FlatMap.Outer")
        let sink = script.object(3, .subscriber, "Sink", label: "files")
        let deferred = script.object(4, .publisher, "Deferred", tracked: false)
        let future = script.object(5, .publisher, "Future")
        let side = script.object(6, .subscriber, "FlatMap.Outer.Side")
        let conduit = script.object(7, .subscription, "Future.Conduit")
        script.call(.subscribe(publisher: flatMap, subscriber: sink)) {
            $0.call(.receiveSubscription(subscriber: sink, subscription: outer)) {
                $0.call(.request(subscription: outer, demand: .unlimited))
            }
            $0.call(.subscribe(publisher: deferred, subscriber: side)) {
                $0.call(.subscribe(publisher: future, subscriber: side)) {
                    $0.call(.receiveSubscription(subscriber: side, subscription: conduit)) {
                        $0.call(.request(subscription: conduit, demand: .unlimited))
                    }
                }
            }
        }
        script.call(.value(subscriber: side, returnedDemand: nil, value: "file")) {
            $0.call(.value(subscriber: sink, returnedDemand: nil, value: "file"))
        }
        let folded = SequenceModel.fitted(script.trace, diagnoses: [], options: SequenceDiagramOptions(collapse: .operators))
        func lane(_ object: TraceObjectID) -> Int? {
            folded.lanes.firstIndex { lane in lane.object.id == object || lane.members.contains { $0.id == object } }
        }
        #expect(lane(conduit) == lane(future) && lane(future) != lane(side))
        let values = folded.steps.compactMap { step -> (caller: Int?, callee: Int)? in
            guard case .call(let caller, let callee, .value, _) = step.content else { return nil }
            return (caller, callee)
        }
        #expect(values.map(\.caller) == [lane(future), lane(side)], "\(values)")
        #expect(values.map(\.callee) == [lane(side), lane(sink)], "\(values)")
    }

    /// A `Deferred` is a struct, boxed afresh for each hook call: as the download center
    /// recorded it, the return of the `Future`'s subscribe names the `Deferred`'s first box,
    /// and the `Deferred`'s own return a box seen nowhere else. Each return closes the call it
    /// ends, and the second box gets no lane of its own: folded, the `Deferred` is one of
    /// the operators; unfolded, it has one lane, whose call returns.
    @Test func aDeferredsReturnClosesItsOwnSubscribeThoughItNamesAnotherBox() throws {
        var script = TraceScript()
        let flatMap = script.object(1, .publisher, "FlatMap", tracked: false)
        let outer = script.object(2, .subscriber, "FlatMap.Outer")
        let sink = script.object(3, .subscriber, "Sink", label: "files")
        let deferred = script.object(4, .publisher, "Deferred", tracked: false)
        let future = script.object(5, .publisher, "Future")
        let side = script.object(6, .subscriber, "FlatMap.Outer.Side")
        let conduit = script.object(7, .subscription, "Future.Conduit")
        let laterBox = script.object(8, .publisher, "Deferred", tracked: false)
        script.call(.subscribe(publisher: flatMap, subscriber: sink)) {
            $0.call(.receiveSubscription(subscriber: sink, subscription: outer)) {
                $0.call(.request(subscription: outer, demand: .unlimited))
            }
            $0.event(.begin, .subscribe(publisher: deferred, subscriber: side))
            $0.event(.begin, .subscribe(publisher: future, subscriber: side))
            $0.call(.receiveSubscription(subscriber: side, subscription: conduit)) {
                $0.call(.request(subscription: conduit, demand: .unlimited))
            }
            $0.event(.end, .subscribe(publisher: deferred, subscriber: side))
            $0.event(.end, .subscribe(publisher: laterBox, subscriber: side))
        }
        script.call(.value(subscriber: side, returnedDemand: nil, value: "file")) {
            $0.call(.value(subscriber: sink, returnedDemand: nil, value: "file"))
        }
        for collapse in [SequenceDiagramOptions.Collapse.none, .operators] {
            let model = SequenceModel.fitted(script.trace, diagnoses: [], options: SequenceDiagramOptions(collapse: collapse))
            #expect(!model.lanes.contains { $0.object.id == laterBox || $0.members.contains { $0.id == laterBox } }, "\(collapse)")
            // Every call returns where it was made: no call closed for want of its return.
            #expect(model.steps.allSatisfy { $0.seq != nil }, "\(collapse)")
            let subscribes = model.steps.compactMap { step -> (seq: UInt64?, callee: Int, returns: Bool)? in
                switch step.content {
                case .call(_, let callee, .subscribe, _): return (step.seq, callee, false)
                case .callReturn(_, let callee, .subscribe, _, _): return (step.seq, callee, true)
                default: return nil
                }
            }
            #expect(subscribes.filter(\.returns).count == subscribes.filter { !$0.returns }.count, "\(collapse): \(subscribes)")
        }
        let unfolded = SequenceModel.fitted(script.trace, diagnoses: [], options: SequenceDiagramOptions(collapse: .none))
        let deferredLane = try #require(unfolded.lanes.firstIndex { $0.object.id == deferred })
        let futureLane = try #require(unfolded.lanes.firstIndex { $0.object.id == future })
        // The Future's return (the 12th event) ends the Future's activation, the Deferred's
        // (the 13th) the Deferred's.
        let returns = unfolded.steps.compactMap { step -> (UInt64, Int)? in
            if case .callReturn(_, let callee, .subscribe, _, _) = step.content, let seq = step.seq, seq == 12 || seq == 13 { return (seq, callee) }
            return nil
        }
        #expect(returns.map(\.1) == [futureLane, deferredLane], "\(returns)")
        let folded = SequenceModel.fitted(script.trace, diagnoses: [], options: SequenceDiagramOptions(collapse: .operators))
        #expect(folded.lanes.contains { $0.isGroup && $0.members.contains { $0.id == deferred } })
    }

    /// A hand-written subscriber that subscribes an upload from its `receive(_:)` (photo-backup's
    /// worker): the upload, which received no value, is a pipeline of its own, in the pipelines
    /// and in a folded picture. Its operators are not folded into the
    /// worker's, its sink keeps a lane, the worker's delivery subscribes it, and the failure
    /// that reaches the sink later is drawn (both vanished inside the worker's operators).
    @Test func aPipelineSubscribedInsideADeliveryIsItsOwnGroupInAFoldedPicture() throws {
        var script = TraceScript()
        let subject = script.object(1, .publisher, "PassthroughSubject", tracked: false)
        let conduit = script.object(2, .subscription, "PassthroughSubject.Conduit")
        let receiveOn = script.object(3, .publisher, "Publishers.ReceiveOn", tracked: false)
        let receiving = script.object(4, .subscriber, "Publishers.ReceiveOn.Inner")
        let worker = script.object(5, .subscriber, "UploadWorker", label: "worker")
        let upload = script.object(6, .publisher, "AnyPublisher", tracked: false)
        let fail = script.object(7, .publisher, "Fail", tracked: false)
        let delaying = script.object(8, .subscriber, "Publishers.Delay.Inner")
        let empty = script.object(9, .subscription, "Subscriptions.Empty", tracked: false)
        let sink = script.object(10, .subscriber, "Sink", label: "upload")
        script.call(.subscribe(publisher: receiveOn, subscriber: worker)) {
            $0.call(.subscribe(publisher: subject, subscriber: receiving)) {
                $0.call(.receiveSubscription(subscriber: receiving, subscription: conduit)) {
                    $0.call(.receiveSubscription(subscriber: worker, subscription: receiving)) {
                        $0.call(.request(subscription: receiving, demand: .max(1))) {
                            $0.call(.request(subscription: conduit, demand: .max(1)))
                        }
                    }
                }
            }
        }
        script.call(.value(subscriber: receiving, returnedDemand: nil, value: "photo 5")) {
            $0.call(.value(subscriber: worker, returnedDemand: nil, value: "photo 5")) {
                $0.call(.subscribe(publisher: upload, subscriber: sink)) {
                    $0.call(.subscribe(publisher: fail, subscriber: delaying)) {
                        $0.call(.receiveSubscription(subscriber: delaying, subscription: empty)) {
                            $0.call(.receiveSubscription(subscriber: sink, subscription: delaying)) {
                                $0.call(.request(subscription: delaying, demand: .unlimited)) {
                                    $0.call(.request(subscription: empty, demand: .unlimited))
                                }
                            }
                        }
                        $0.call(.completion(subscriber: delaying, completion: .failure("tooLarge")))
                    }
                }
            }
        }
        script.thread = 2
        script.threads[2] = TraceThread(tid: 2, name: "network")
        script.call(.completion(subscriber: sink, completion: .failure("tooLarge")))
        let trace = script.trace
        #expect(TracePipelines(TraceLifecycles(trace)).pipelines.count == 2, "the upload, subscribed in the worker's delivery, is a pipeline of its own")

        let folded = SequenceModel.fitted(trace, diagnoses: [], options: SequenceDiagramOptions(collapse: .operators))
        func lane(_ object: TraceObjectID) -> Int? {
            folded.lanes.firstIndex { lane in lane.object.id == object || lane.members.contains { $0.id == object } }
        }
        let sinkLane = try #require(lane(sink))
        #expect(folded.lanes[sinkLane].members.isEmpty, "the upload's sink has a lane of its own")
        #expect(lane(delaying) != lane(receiving) && lane(upload) == lane(delaying))
        let delayingLane = try #require(lane(delaying)), receivingLane = try #require(lane(receiving))
        #expect(folded.lanes[delayingLane].isGroup && folded.lanes[receivingLane].isGroup)
        let calls = folded.steps.compactMap { step -> (caller: Int?, callee: Int, kind: CallKind)? in
            guard case .call(let caller, let callee, let kind, _) = step.content else { return nil }
            return (caller, callee, kind)
        }
        let subscribes = calls.filter { $0.kind == .subscribe }
        #expect(subscribes.contains { $0.caller == lane(worker) && $0.callee == lane(upload) }, "the worker's delivery subscribes the upload")
        #expect(subscribes.contains { $0.caller == lane(delaying) && $0.callee == lane(fail) }, "the upload's operators subscribe the Fail")
        #expect(calls.contains { $0.callee == sinkLane && $0.kind == .completion(.failure("tooLarge")) && $0.caller == lane(delaying) },
                "the failure reaching the upload's sink is drawn")
        #expect(calls.contains { $0.callee == sinkLane && $0.kind == .receiveSubscription })
    }
}
