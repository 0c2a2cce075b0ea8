import LifelineLog
import Testing
@testable import LifelineAnalysis

/// Every code, triggered by a hand-written misbehaving publisher or subscriber.
@Suite struct RuleTriggerTests {
    /// A custom publisher, subscriber and subscription, subscribed with `demand` requested
    /// inside receive(subscription:): events 1…6.
    private func subscribed(requesting demand: TraceDemand) -> (TraceScript, p: TraceObjectID, x: TraceObjectID, s: TraceObjectID) {
        var script = TraceScript()
        let p = script.object("CustomPublisher", .publisher)
        let x = script.object("CustomSubscriber", .subscriber, label: "feed")
        let s = script.object("CustomSubscription", .subscription)
        script.subscribe(p, x) { $0.receiveSubscription(x, s) { $0.request(s, demand) } }
        return (script, p, x, s)
    }

    private func only(_ script: TraceScript, closed: Bool = true) throws -> Diagnosis {
        let diagnoses = TraceAnalyzer().diagnose(script.trace(closed: closed))
        #expect(diagnoses.count == 1, "\(diagnoses.map(\.code))")
        return try #require(diagnoses.first)
    }

    @Test func subscriberDeallocatedEarly() throws {
        var (script, p, x, s) = subscribed(requesting: .max(3))
        script.value(x) // 7, 8
        script.found(dead: x, aliveAt: 8) // 9
        let diagnosis = try only(script)
        #expect(diagnosis.code == "subscriber-deallocated-early")
        #expect(diagnosis.objects == [x, s, p])
        #expect(diagnosis.evidence == [2, 3, 9])
        #expect(diagnosis.message == "CustomSubscriber \"feed\" #2 was deallocated while its subscription CustomSubscription #3 was still live: it had asked for 3 values and received 1, nothing had completed or cancelled the subscription, and it was still alive when recording stopped.")
    }

    @Test func noOutstandingDemandMeansTheSubscriberDidNotDieEarly() {
        var (script, _, x, _) = subscribed(requesting: .max(1))
        script.value(x)
        script.found(dead: x, aliveAt: 8)
        #expect(script.codes().isEmpty)
    }

    @Test func aCancelBeforeTheDeathClearsTheSubscriber() {
        var (script, _, x, s) = subscribed(requesting: .unlimited)
        script.mark("later")
        script.cancel(s) // 8, 9
        script.found(dead: x, aliveAt: 7) // death window spans the cancel
        #expect(script.codes().isEmpty)
    }

    @Test func subscriptionNotRetainedWhileSubscribed() throws {
        var (script, p, x, s) = subscribed(requesting: .max(2))
        script.value(x, returning: .max(1)) // 7, 8
        script.died(s) // 9
        let diagnosis = try only(script)
        #expect(diagnosis.code == "subscription-not-retained")
        #expect(diagnosis.objects == [s, x, p])
        #expect(diagnosis.evidence == [2, 5, 9])
        #expect(diagnosis.message.hasPrefix("CustomSubscription #3 was deallocated while CustomSubscriber \"feed\" #2 was still subscribed to it"))
    }

    @Test func cancelledImmediatelyDuringTheSubscribeCall() throws {
        var script = TraceScript()
        let p = script.object("PassthroughSubject", .publisher)
        let x = script.object("OneShotSubscriber", .subscriber)
        let s = script.object("Conduit", .subscription)
        script.subscribe(p, x) { $0.receiveSubscription(x, s) { $0.cancel(s) } }
        let diagnosis = try only(script)
        #expect(diagnosis.code == "cancelled-immediately")
        #expect(diagnosis.evidence == [1, 2, 3])
        #expect(diagnosis.message.contains("during the subscribe call that created it"))
    }

    @Test func valueAfterCancelOnTheCancellingThread() throws {
        var (script, p, x, s) = subscribed(requesting: .unlimited)
        script.mark("the user closed the screen") // 7: a deliberate cancel
        script.cancel(s) // 8, 9
        script.value(x) // 10, 11
        let diagnosis = try only(script)
        #expect(diagnosis.code == "value-after-cancel")
        #expect(diagnosis.objects == [s, x, p])
        #expect(diagnosis.evidence == [8, 9, 10])
        #expect(diagnosis.message == "CustomSubscription #3 delivered a value to CustomSubscriber \"feed\" #2 after its cancel() returned at @9: a cancelled subscription must send nothing more, whatever the demand.")
    }

    @Test func oneValueOnAnotherThreadRightAfterTheCancelMayHaveBeenOnItsWay() throws {
        var (script, _, x, s) = subscribed(requesting: .unlimited)
        script.mark("the user closed the screen") // 7: a deliberate cancel
        script.cancel(s) // 8, 9
        script.thread = TraceScript.worker
        script.value(x) // 10, 11
        #expect(script.codes().isEmpty)
        script.value(x) // 12, 13
        let diagnosis = try only(script)
        #expect(diagnosis.code == "value-after-cancel")
        #expect(diagnosis.evidence == [8, 9, 12])
        #expect(diagnosis.message.contains("delivered 2 values"))
    }

    /// `receive(on:)`'s stage received a value upstream, on the network queue, and scheduled
    /// it on the main queue; the main queue cancelled before running that block, which then
    /// delivers it: the value was on its way. A value that reaches the stage upstream after
    /// the cancel, and is passed on, is late.
    @Test func aValueAnOperatorHadScheduledBeforeTheCancelWasOnItsWay() throws {
        var script = TraceScript()
        let subject = script.object("PassthroughSubject", .publisher)
        let conduit = script.object("PassthroughSubject.Conduit", .subscription)
        let receiveOn = script.object("ReceiveOn", .publisher)
        let stage = script.object("ReceiveOn.Inner", .subscription)
        let sink = script.object("Sink", .subscriber)
        script.subscribe(receiveOn, sink) { script in
            script.subscribe(subject, stage) { script in
                script.receiveSubscription(stage, conduit) { script in
                    script.receiveSubscription(sink, stage) { $0.request(stage, .unlimited) { $0.request(conduit, .unlimited) } }
                }
            }
        }
        for scheduled in 0..<2 {
            script.thread = TraceScript.worker
            script.value(stage) // received upstream, scheduled on the main queue
            script.thread = TraceScript.main
            if scheduled == 0 { script.value(sink) }
        }
        script.cancel(stage) { $0.cancel(conduit) }
        script.value(sink) // the scheduled block runs
        #expect(script.codes().isEmpty)

        script.thread = TraceScript.worker
        script.value(stage) // a cancelled conduit sent it on
        script.thread = TraceScript.main
        script.value(sink)
        let diagnosis = try #require(TraceAnalyzer().diagnose(script.trace()).first { $0.code == "value-after-cancel" })
        #expect(diagnosis.objects == [stage, sink, receiveOn])
        #expect(diagnosis.message.contains("delivered 2 values to Sink"), "\(diagnosis.message)")
        #expect(diagnosis.evidence.last == script.events.last { $0.phase == .begin }?.seq)
    }

    @Test func demandExceeded() throws {
        var (script, p, x, s) = subscribed(requesting: .max(1))
        script.value(x) // 7, 8
        script.value(x) // 9, 10
        script.complete(x)
        let diagnosis = try only(script)
        #expect(diagnosis.code == "demand-exceeded")
        #expect(diagnosis.severity == .error)
        #expect(diagnosis.objects == [s, x, p])
        #expect(diagnosis.evidence == [3, 9])
        #expect(diagnosis.message == "CustomSubscription #3 delivered value 2 to CustomSubscriber \"feed\" #2, but CustomSubscriber \"feed\" #2 had asked for only 1 value.")
    }

    @Test func aValueBeforeAnyRequestExceedsDemand() throws {
        var script = TraceScript()
        let p = script.object("BusyPublisher", .publisher, tracked: false)
        let x = script.object("Subscribers.Sink", .subscriber)
        let s = script.object("Subscriptions.empty", .subscription, tracked: false)
        script.subscribe(p, x) {
            $0.receiveSubscription(x, s)
            $0.value(x) // 4, 5
        }
        let diagnosis = try only(script)
        #expect(diagnosis.code == "demand-exceeded")
        #expect(diagnosis.evidence == [4])
        #expect(diagnosis.message == "Subscriptions.empty #3 delivered value 1 to Subscribers.Sink #2, but Subscribers.Sink #2 had not asked for any values yet.")
    }

    @Test func demandReturnedFromReceiveCountsTowardsTheTotal() {
        var (script, _, x, _) = subscribed(requesting: .max(1))
        script.value(x, returning: .max(1))
        script.value(x)
        script.complete(x)
        #expect(script.codes().isEmpty)
    }

    @Test func demandStalled() throws {
        var (script, p, x, s) = subscribed(requesting: .max(2))
        script.value(x) // 7, 8
        script.value(x) // 9, 10
        let diagnosis = try only(script)
        #expect(diagnosis.code == "demand-stalled")
        #expect(diagnosis.severity == .warning)
        #expect(diagnosis.objects == [x, s, p])
        #expect(diagnosis.evidence == [2, 3, 9, 10])
        #expect(diagnosis.message == "CustomSubscriber \"feed\" #2 asked for 2 values, received all of them, and asked for no more: "
            + "the value delivered at @9 used its last demand and receive(_:) returned .none (@10). CustomSubscription #3 was "
            + "still open with no outstanding demand when recording stopped, so nothing more could arrive.")
    }

    @Test func aSubscriberThatNeverAsksIsStalled() throws {
        var script = TraceScript()
        let p = script.object("PassthroughSubject", .publisher)
        let x = script.object("CustomSubscriber", .subscriber)
        let s = script.object("Conduit", .subscription)
        script.subscribe(p, x) { $0.receiveSubscription(x, s) }
        let diagnosis = try only(script)
        #expect(diagnosis.code == "demand-stalled")
        #expect(diagnosis.evidence == [2])
        #expect(diagnosis.message.hasPrefix("CustomSubscriber #2 never asked for any values"))
    }

    @Test func valueAfterCompletion() throws {
        var (script, p, x, s) = subscribed(requesting: .unlimited)
        script.complete(x) // 7, 8
        script.value(x) // 9, 10
        let diagnosis = try only(script)
        #expect(diagnosis.code == "value-after-completion")
        #expect(diagnosis.objects == [x, s, p])
        #expect(diagnosis.evidence == [7, 9])
        #expect(diagnosis.message == "CustomSubscriber \"feed\" #2 received a value from CustomSubscription #3 after it had received its completion (.finished).")
    }

    @Test func duplicateCompletion() throws {
        var (script, p, x, s) = subscribed(requesting: .unlimited)
        script.complete(x) // 7, 8
        script.complete(x, .failure("Timeout")) // 9, 10
        let diagnosis = try only(script)
        #expect(diagnosis.code == "duplicate-completion")
        #expect(diagnosis.objects == [x, s, p])
        #expect(diagnosis.evidence == [7, 9])
        #expect(diagnosis.message.contains("second completion (.failure(Timeout))"))
    }

    @Test func duplicateSubscription() throws {
        var (script, _, x, s) = subscribed(requesting: .unlimited)
        let other = script.object("OtherPublisher", .publisher)
        let second = script.object("OtherSubscription", .subscription)
        script.subscribe(other, x) { $0.receiveSubscription(x, second) } // 7…10
        script.complete(x)
        let diagnosis = try only(script)
        #expect(diagnosis.code == "duplicate-subscription")
        #expect(diagnosis.objects == [x, second, s, other])
        #expect(diagnosis.evidence == [2, 8])
        #expect(diagnosis.message == "CustomSubscriber \"feed\" #2 received a second subscription, OtherSubscription #5 from OtherPublisher #4, while its subscription CustomSubscription #3 was still live.")
    }

    @Test func aSecondSubscriptionFromTheSameSubscribeCallIsADuplicateEvenAfterTheFirstEnded() throws {
        var script = TraceScript()
        let p = script.object("CustomPublisher", .publisher)
        let x = script.object("CustomSubscriber", .subscriber)
        let first = script.object("CustomSubscription", .subscription)
        let second = script.object("CustomSubscription", .subscription)
        script.subscribe(p, x) {
            $0.receiveSubscription(x, first) { // 2
                $0.request(first, .unlimited) { $0.complete(x) }
            }
            $0.receiveSubscription(x, second) // 8
        }
        let diagnosis = try only(script)
        #expect(diagnosis.code == "duplicate-subscription")
        #expect(diagnosis.objects == [x, second, first, p])
        #expect(diagnosis.evidence == [2, 8])
        #expect(diagnosis.message == "CustomSubscriber #2 received a second subscription, CustomSubscription #4 from CustomPublisher #1, without being subscribed again, after CustomSubscription #3.")
    }

    @Test func valueBeforeSubscription() throws {
        var script = TraceScript()
        let p = script.object("CustomPublisher", .publisher)
        let x = script.object("CustomSubscriber", .subscriber)
        let s = script.object("CustomSubscription", .subscription)
        script.subscribe(p, x) {
            $0.value(x) // 2, 3
            $0.receiveSubscription(x, s) { $0.request(s, .unlimited) }
        }
        script.complete(x)
        let diagnosis = try only(script)
        #expect(diagnosis.code == "value-before-subscription")
        #expect(diagnosis.objects == [x, p])
        #expect(diagnosis.evidence == [1, 2])
    }

    /// OpenCombine's `Future`, fulfilled on another queue while it hands out its subscription:
    /// `retry` takes the failure as the end, subscribes again, and only then gets the first
    /// subscription, which it cancels. The cause is the completion that came first, not a
    /// subscriber subscribed twice.
    @Test func aCompletionBeforeTheSubscriptionIsReportedAndItsLateSubscriptionIsNoDuplicate() throws {
        var script = TraceScript()
        let future = script.object("Future", .publisher)
        let retry = script.object("Retry.Inner", .subscriber)
        let first = script.object("Future.Conduit", .subscription)
        let again = script.object("Future", .publisher)
        let second = script.object("Future.Conduit", .subscription)
        script.record(.begin, .subscribe(publisher: future, subscriber: retry)) // 1
        script.thread = TraceScript.worker
        script.complete(retry, .failure("busy")) { // 2
            $0.subscribe(again, retry) { $0.receiveSubscription(retry, second) { $0.request(second, .unlimited) } }
        }
        script.thread = TraceScript.main
        script.receiveSubscription(retry, first) { $0.cancel(first) } // 10
        script.record(.end, .subscribe(publisher: future, subscriber: retry))
        script.thread = TraceScript.worker
        script.complete(retry)
        let diagnosis = try only(script)
        #expect(diagnosis.code == "value-before-subscription")
        #expect(diagnosis.objects == [retry, future, first])
        #expect(diagnosis.evidence == [1, 2, 10])
        #expect(diagnosis.message == "Retry.Inner #2 received its completion (.failure(busy)) from Future #1 before it had "
            + "received any subscription. Its subscription Future.Conduit #3 arrived only afterwards, on main.")
    }

    @Test func aPipelineRecordedFromTheMiddleClaimsNothing() {
        var script = TraceScript()
        let sink = script.object("Sink", .subscriber)
        let conduit = script.object("PassthroughSubject.Conduit", .subscription)
        script.value(sink)
        script.value(sink)
        script.cancel(conduit)
        script.complete(sink)
        #expect(script.codes().isEmpty)
    }

    @Test func zeroDemandRequest() throws {
        var (script, _, x, s) = subscribed(requesting: .max(1))
        script.value(x) // 7, 8
        script.request(s, .none) // 9, 10
        script.complete(x)
        let diagnosis = try only(script)
        #expect(diagnosis.code == "zero-demand-request")
        #expect(diagnosis.objects == [s, x])
        #expect(diagnosis.evidence == [9])
        #expect(diagnosis.message.hasPrefix("request(.none) was called on CustomSubscription #3 by CustomSubscriber \"feed\" #2"))
    }

    @Test func concurrentDelivery() throws {
        var (script, _, x, s) = subscribed(requesting: .unlimited)
        script.record(.begin, .value(subscriber: x, returnedDemand: nil, value: nil), on: TraceScript.main) // 7
        script.record(.begin, .value(subscriber: x, returnedDemand: nil, value: nil), on: TraceScript.worker) // 8
        script.record(.end, .value(subscriber: x, returnedDemand: .max(0), value: nil), on: TraceScript.main) // 9
        script.record(.end, .value(subscriber: x, returnedDemand: .max(0), value: nil), on: TraceScript.worker) // 10
        script.complete(x)
        let diagnosis = try only(script)
        #expect(diagnosis.code == "concurrent-delivery")
        #expect(diagnosis.objects.first == x)
        #expect(diagnosis.evidence == [7, 8, 9])
        #expect(diagnosis.message == "CustomSubscriber \"feed\" #2 was called on two threads at once: receive(_:) began on worker while receive(_:) was still running on main.")
        _ = s
    }

    /// Two workers of one concurrent queue share its label; the finding tells them apart and
    /// names the subscription whose sends need serializing.
    @Test func concurrentDeliveryOnTwoThreadsOfOneQueue() throws {
        var (script, _, x, s) = subscribed(requesting: .unlimited)
        script.record(.begin, .value(subscriber: x, returnedDemand: nil, value: nil), on: TraceScript.main) // 7
        script.record(.begin, .value(subscriber: x, returnedDemand: nil, value: nil), on: TraceScript.worker) // 8
        script.record(.end, .value(subscriber: x, returnedDemand: .max(0), value: nil), on: TraceScript.main) // 9
        script.record(.end, .value(subscriber: x, returnedDemand: .max(0), value: nil), on: TraceScript.worker) // 10
        script.complete(x)
        let scripted = script.trace()
        let pool = "downloads.chunks"
        let trace = Trace(
            header: scripted.header, objects: scripted.objects,
            threads: [1: TraceThread(tid: 1, name: pool), 2: TraceThread(tid: 2, name: pool)],
            queues: [:], events: scripted.events, snapshots: [], damage: []
        )
        let diagnosis = try #require(TraceAnalyzer().diagnose(trace).first { $0.code == "concurrent-delivery" })
        #expect(diagnosis.message == "CustomSubscriber \"feed\" #2 was called on two threads at once: receive(_:) began on "
            + "downloads.chunks (thread 2) while receive(_:) was still running on another thread of it (thread 1).")
        #expect(diagnosis.fix.contains("serialize the sends of CustomSubscription #3 with"), "\(diagnosis.fix)")
        // receive(on:) is no fix: its own subscriber would be called on two threads at once.
        #expect(!diagnosis.fix.contains("add receive(on:)"), "\(diagnosis.fix)")
        _ = s
    }

    /// A future fulfilled on a worker while main is still handing its subscription over: the
    /// result overtakes the handshake. The fix is to send where the subscribe runs, or to
    /// subscribe where the sends run; a snapshot main took inside the handshake widened it.
    @Test func aResultThatOvertookTheHandshakeSaysSoAndHowToAvoidIt() throws {
        var script = TraceScript()
        let future = script.object("Future", .publisher)
        let x = script.object("CustomSubscriber", .subscriber)
        let conduit = script.object("Future.Conduit", .subscription)
        var paused: UInt64 = 0
        script.subscribe(future, x) { script in
            script.receiveSubscription(x, conduit) { script in // 2
                script.request(conduit, .unlimited) // 3, 4
                paused = script.nextSeq - 1
                script.thread = TraceScript.worker
                script.value(x) // 5, 6
                script.complete(x) // 7, 8
                script.thread = TraceScript.main
            }
        }
        var trace = script.trace()
        trace = Trace(
            header: trace.header, objects: trace.objects, threads: trace.threads, queues: trace.queues, events: trace.events,
            snapshots: [TraceSnapshot(index: 1, seq: paused, label: "after request", reason: .requested, nodes: [], edges: [])],
            damage: []
        )
        let diagnosis = try #require(TraceAnalyzer().diagnose(trace).first { $0.code == "concurrent-delivery" })
        #expect(diagnosis.message == "CustomSubscriber #2 was called on two threads at once: receive(_:) began on worker while "
            + "receive(subscription:) was still running on main. The result of Future.Conduit #3 overtook the handshake that "
            + "handed it over. Recording widened the window: snapshot 1 was taken on main inside that receive(subscription:), after @4.")
        #expect(diagnosis.fix.hasPrefix("Send on the queue that subscribes, or subscribe on the queue that sends: deliver "
            + "the results of Future.Conduit #3 on main, or subscribe to its publisher with subscribe(on:) on worker"), "\(diagnosis.fix)")
        #expect(diagnosis.evidence == [2, 4, 5, 9])
    }

    @Test func serialDeliveryFromTwoThreadsIsFine() {
        var (script, _, x, _) = subscribed(requesting: .unlimited)
        script.thread = TraceScript.worker
        script.value(x)
        script.thread = TraceScript.main
        script.value(x)
        script.complete(x)
        #expect(script.codes().isEmpty)
    }

    @Test func leakedSubscriptionInsideAScope() throws {
        var script = TraceScript()
        let p = script.object("PassthroughSubject", .publisher)
        let x = script.object("Sink", .subscriber)
        let s = script.object("Conduit", .subscription)
        script.mark("scope begin") // 1
        script.subscribe(p, x) { $0.receiveSubscription(x, s) { $0.request(s, .unlimited) } } // 2…7
        script.mark("scope end") // 8
        let trace = script.trace()
        let scope = try #require(ObservedScope(trace: trace, beginMark: "scope begin", endMark: "scope end"))
        #expect(scope == ObservedScope(begin: 1, end: 8))
        #expect(TraceAnalyzer().diagnose(trace).isEmpty, "without a scope nothing is claimed")

        let analyzer = TraceAnalyzer(rules: TraceAnalyzer.standardRules + [LeakedSubscriptionRule(scope: scope)])
        let diagnoses = analyzer.diagnose(trace)
        #expect(diagnoses.map(\.code) == ["leaked-subscription"])
        let diagnosis = try #require(diagnoses.first)
        #expect(diagnosis.objects == [x, s])
        #expect(diagnosis.evidence == [2, 3, 8])
        // An unclosed log proves nothing about the end: no leak, only what the open pipeline waited on.
        #expect(analyzer.diagnose(script.trace(closed: false)).map(\.code) == ["waits-on"])
    }

    @Test func aCompletedPipelineStillHeldAfterItsScopeIsNotALeak() throws {
        var script = TraceScript()
        let p = script.object("PassthroughSubject", .publisher)
        let x = script.object("Sink", .subscriber)
        let s = script.object("Conduit", .subscription)
        script.mark("scope begin")
        script.subscribe(p, x) { $0.receiveSubscription(x, s) { $0.request(s, .unlimited) } }
        script.complete(x)
        script.mark("scope end")
        let scope = try #require(ObservedScope(trace: script.trace(), beginMark: "scope begin", endMark: "scope end"))
        let analyzer = TraceAnalyzer(rules: [LeakedSubscriptionRule(scope: scope)])
        #expect(analyzer.diagnose(script.trace()).isEmpty)
    }
}
