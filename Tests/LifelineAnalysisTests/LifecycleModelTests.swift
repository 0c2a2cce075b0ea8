import LifelineLog
import Testing
@testable import LifelineAnalysis

@Suite struct LifecycleModelTests {
    @Test func aCompleteHandshakeMovesThroughEveryState() {
        var script = TraceScript()
        let subject = script.object("PassthroughSubject", .publisher)
        let sink = script.object("Sink", .subscriber)
        let conduit = script.object("Conduit", .subscription)
        script.subscribe(subject, sink) { // 1…6
            $0.receiveSubscription(sink, conduit) { $0.request(conduit, .max(2)) }
        }
        script.thread = TraceScript.worker
        script.value(sink, returning: .max(1)) // 7, 8
        script.complete(sink) // 9, 10
        script.thread = TraceScript.main
        script.cancel(conduit) // 11, 12
        script.died(conduit) // 13

        let lifecycles = TraceLifecycles(script.trace())
        #expect(lifecycles.lifecycles.count == 1)
        let lifecycle = lifecycles.lifecycles[0]
        #expect(lifecycle.hop == Hop(publisher: subject, subscription: conduit, subscriber: sink))
        #expect(lifecycle.transitions.map(\.state) == [.awaitingSubscription, .subscribed, .completed, .deallocated])
        #expect(lifecycle.transitions.map(\.seq) == [1, 2, 9, 13])
        #expect(lifecycle.grants.map(\.seq) == [3, 8])
        #expect(lifecycle.grants.map(\.source) == [.request, .returnedFromValue])
        #expect(lifecycle.totalDemand == .max(3))
        #expect(lifecycle.outstandingDemand == .max(2))
        #expect(lifecycle.deliveries == [Lifecycle.Delivery(begin: 7, end: 8, thread: TraceScript.worker)])
        #expect(lifecycle.cancels == [11])
        #expect(lifecycle.end == 9)
        #expect(lifecycle.threads == [TraceScript.main, TraceScript.worker])
        #expect(lifecycle.events == Array(1...13))
        #expect(lifecycle.state(before: 9) == .subscribed)
    }

    @Test func anOperatorStageLinksTheHopsOnEitherSide() {
        var script = TraceScript()
        let subject = script.object("PassthroughSubject", .publisher)
        let map = script.object("Publishers.TryMap", .publisher, tracked: false)
        let sink = script.object("Sink", .subscriber)
        let inner = script.object("Publishers.TryMap.Inner", .subscriber)
        let conduit = script.object("Conduit", .subscription)
        script.subscribe(map, sink) {
            $0.subscribe(subject, inner) {
                $0.receiveSubscription(inner, conduit) {
                    $0.receiveSubscription(sink, inner) {
                        $0.request(inner, .unlimited) { $0.request(conduit, .unlimited) }
                    }
                }
            }
        }
        let lifecycles = TraceLifecycles(script.trace())
        let down = lifecycles.lifecycles(ofSubscriber: sink)[0]
        let up = lifecycles.lifecycles(ofSubscriber: inner)[0]
        #expect(down.subscription == inner)
        #expect(up.subscription == conduit)
        #expect(down.upstream == [up.id])
        #expect(up.downstream == [down.id])
        #expect(up.subscriberRelaysDownstream)
        #expect(!down.subscriberRelaysDownstream)
        #expect(lifecycles.isPipelineEnd(down))
        #expect(!lifecycles.isPipelineEnd(up))
        #expect(down.grants.map(\.demand) == [.unlimited])
        #expect(up.grants.map(\.demand) == [.unlimited])
    }

    @Test func aSubscriberSubscribedAgainAfterItsCompletionStartsANewLifecycle() {
        var script = TraceScript()
        let upstream = script.object("Fail", .publisher, tracked: false)
        let retry = script.object("Publishers.Retry.Inner", .subscriber)
        let first = script.object("Subscriptions.empty", .subscription, tracked: false)
        let second = script.object("Subscriptions.empty", .subscription, tracked: false)
        script.subscribe(upstream, retry) {
            $0.receiveSubscription(retry, first)
            $0.complete(retry, .failure("E")) {
                $0.subscribe(upstream, retry) { $0.receiveSubscription(retry, second) }
            }
        }
        script.value(retry)
        let lifecycles = TraceLifecycles(script.trace())
        let all = lifecycles.lifecycles(ofSubscriber: retry)
        #expect(all.map(\.subscription) == [first, second])
        #expect(all[0].state == .completed)
        #expect(all[1].state == .subscribed)
        #expect(all[1].deliveries.count == 1)
        #expect(lifecycles.lifecycle(ofEvent: 9)?.id == all[0].id, "the completion's end belongs to the first")
    }

    @Test func aForwardedSubscribeJoinsTheLifecycleItForwards() {
        var script = TraceScript()
        let deferred = script.object("Deferred", .publisher, tracked: false)
        let just = script.object("Just", .publisher, tracked: false)
        let sink = script.object("Sink", .subscriber)
        let inner = script.object("Just.Inner", .subscription)
        script.subscribe(deferred, sink) {
            $0.subscribe(just, sink) { $0.receiveSubscription(sink, inner) }
        }
        let lifecycles = TraceLifecycles(script.trace())
        #expect(lifecycles.lifecycles.count == 1)
        #expect(lifecycles.lifecycles[0].publisher == deferred)
        #expect(lifecycles.lifecycles[0].subscription == inner)
    }

    @Test func aSharedValueTypeSubscriptionRoutesCallsToTheSubscriberThatMadeThem() {
        var script = TraceScript()
        let empty = script.object("Empty", .publisher, tracked: false)
        let a = script.object("Sink", .subscriber)
        let b = script.object("Sink", .subscriber)
        let shared = script.object("Subscriptions.empty", .subscription, tracked: false)
        script.subscribe(empty, a) { $0.receiveSubscription(a, shared) { $0.request(shared, .unlimited) } }
        script.subscribe(empty, b) { $0.receiveSubscription(b, shared) { $0.request(shared, .max(1)) } }
        let lifecycles = TraceLifecycles(script.trace())
        #expect(lifecycles.lifecycles(ofSubscriber: a)[0].totalDemand == .unlimited)
        #expect(lifecycles.lifecycles(ofSubscriber: b)[0].totalDemand == .max(1))
    }

    @Test func callsPairAcrossThreadsAndNest() {
        var script = TraceScript()
        let sink = script.object("Sink", .subscriber)
        script.record(.begin, .value(subscriber: sink, returnedDemand: nil, value: nil), on: 1) // 1
        script.record(.begin, .value(subscriber: sink, returnedDemand: nil, value: nil), on: 2) // 2
        script.record(.end, .value(subscriber: sink, returnedDemand: .max(0), value: nil), on: 1) // 3
        script.record(.end, .value(subscriber: sink, returnedDemand: .max(0), value: nil), on: 2) // 4
        script.record(.end, .cancel(subscription: sink), on: 2) // 5: no begin
        let calls = TraceCalls(script.trace().events)
        #expect(calls.call(at: 1)?.end == 3)
        #expect(calls.call(at: 4)?.begin == 2)
        #expect(calls.call(at: 5) == nil)
        #expect(calls.call(at: 2)?.depth == 0)
    }

    @Test func anObjectSeenAliveByALaterCheckOutlivedOneFoundDeadEarlier() {
        let story = Stories.forgottenSubscription()
        let lifecycles = TraceLifecycles(story.script.trace())
        let subscriptionDeath = lifecycles.deallocations[story.subscription]!
        let subscriberDeath = lifecycles.deallocations[story.subscriber]!
        #expect(lifecycles.provablyOutlived(story.subscriber, subscriptionDeath))
        #expect(!lifecycles.provablyOutlived(story.subscription, subscriberDeath))
    }

    @Test func objectsFoundDeadByTheSameCheckOutliveNeitherOther() {
        var script = TraceScript()
        let x = script.object("Subscriber", .subscriber)
        let s = script.object("Subscription", .subscription)
        script.receiveSubscription(x, s) // 1, 2
        script.found(dead: s, aliveAt: 2)
        script.found(dead: x, aliveAt: 2)
        let lifecycles = TraceLifecycles(script.trace())
        #expect(!lifecycles.provablyOutlived(x, lifecycles.deallocations[s]!))
    }
}
