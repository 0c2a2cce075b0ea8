import LifelineLog
import Testing
@testable import LifelineAnalysis

/// Shapes that OpenCombine's operators produce in correct use, written after their source:
/// none may be reported, except the one dropped AnyCancellable at the end of a chain.
@Suite struct OperatorShapeTests {
    @Test func aDroppedChainIsReportedOnceAtItsEndNotAtEveryHop() throws {
        var script = TraceScript()
        let subject = script.object("PassthroughSubject", .publisher)
        let map = script.object("Publishers.TryMap", .publisher, tracked: false)
        let sink = script.object("Sink", .subscriber)
        let inner = script.object("Publishers.TryMap.Inner", .subscriber)
        let conduit = script.object("PassthroughSubject.Conduit", .subscription)
        script.subscribe(map, sink) {
            $0.subscribe(subject, inner) {
                $0.receiveSubscription(inner, conduit) {
                    $0.receiveSubscription(sink, inner) {
                        $0.request(inner, .unlimited) { $0.request(conduit, .unlimited) }
                    }
                }
            }
        }
        script.cancel(inner) { $0.cancel(conduit) }
        let diagnoses = TraceAnalyzer().diagnose(script.trace())
        #expect(diagnoses.map(\.code) == ["cancelled-immediately"])
        #expect(diagnoses.first?.objects == [inner, sink, map])
    }

    @Test func firstCancelsItsUpstreamAfterTheValue() {
        var script = TraceScript()
        let subject = script.object("PassthroughSubject", .publisher)
        let first = script.object("Publishers.First", .publisher, tracked: false)
        let sink = script.object("Sink", .subscriber)
        let inner = script.object("Publishers.First.Inner", .subscriber)
        let conduit = script.object("PassthroughSubject.Conduit", .subscription)
        script.subscribe(first, sink) {
            $0.subscribe(subject, inner) {
                $0.receiveSubscription(inner, conduit) {
                    $0.receiveSubscription(sink, inner) {
                        $0.request(inner, .unlimited) { $0.request(conduit, .unlimited) }
                    }
                }
            }
        }
        script.value(inner) {
            $0.value(sink)
            $0.complete(sink)
            $0.cancel(conduit)
        }
        script.found(dead: conduit, aliveAt: 20)
        script.found(dead: inner, aliveAt: 20)
        #expect(script.codes().isEmpty)
    }

    @Test func zipCancelsTheOtherSideWhenOneSideFinishesEmpty() {
        var script = TraceScript()
        let zip = script.object("Publishers.Zip", .publisher, tracked: false)
        let just = script.object("Just", .publisher, tracked: false)
        let empty = script.object("Empty", .publisher, tracked: false)
        let sink = script.object("Sink", .subscriber)
        let childA = script.object("ChildSubscriber", .subscriber)
        let childB = script.object("ChildSubscriber", .subscriber)
        let justInner = script.object("Just.Inner", .subscription)
        let emptySubscription = script.object("Subscriptions.empty", .subscription, tracked: false)
        let zipInner = script.object("Publishers.Zip.Inner", .subscription)
        script.subscribe(zip, sink) {
            $0.subscribe(just, childA) { $0.receiveSubscription(childA, justInner) }
            $0.subscribe(empty, childB) {
                $0.receiveSubscription(childB, emptySubscription)
                $0.complete(childB) { $0.cancel(justInner) }
            }
            $0.receiveSubscription(sink, zipInner) { $0.request(zipInner, .unlimited) }
            $0.complete(sink)
        }
        script.found(dead: justInner, aliveAt: 24)
        script.found(dead: childA, aliveAt: 24)
        #expect(script.codes().isEmpty)
    }

    @Test func retryResubscribesAfterAFailure() {
        var script = TraceScript()
        let subject = script.object("PassthroughSubject", .publisher)
        let retry = script.object("Publishers.Retry", .publisher, tracked: false)
        let sink = script.object("Sink", .subscriber)
        let inner = script.object("Publishers.Retry.Inner", .subscriber)
        let first = script.object("PassthroughSubject.Conduit", .subscription)
        let second = script.object("PassthroughSubject.Conduit", .subscription)
        script.subscribe(retry, sink) {
            $0.subscribe(subject, inner) {
                $0.receiveSubscription(inner, first) {
                    $0.receiveSubscription(sink, inner) {
                        $0.request(inner, .max(2)) { $0.request(first, .max(2)) }
                    }
                }
            }
        }
        script.value(inner, returning: .none) { $0.value(sink) }
        script.complete(inner, .failure("E")) {
            $0.subscribe(subject, inner) {
                $0.receiveSubscription(inner, second) { $0.request(second, .max(1)) }
            }
        }
        script.found(dead: first, aliveAt: 30)
        script.value(inner) { $0.value(sink) }
        script.complete(inner) { $0.complete(sink) }
        #expect(script.codes().isEmpty)
    }

    @Test func flatMapWaitingForItsChildIsBackPressureNotAStall() {
        var script = TraceScript()
        let subject = script.object("PassthroughSubject", .publisher)
        let flatMap = script.object("Publishers.FlatMap", .publisher, tracked: false)
        let child = script.object("PassthroughSubject", .publisher)
        let sink = script.object("Sink", .subscriber)
        let outer = script.object("Publishers.FlatMap.Outer", .subscriber)
        let conduit = script.object("PassthroughSubject.Conduit", .subscription)
        let side = script.object("Publishers.FlatMap.Outer.Side", .subscriber, tracked: false)
        let childConduit = script.object("PassthroughSubject.Conduit", .subscription)
        script.subscribe(flatMap, sink) {
            $0.subscribe(subject, outer) {
                $0.receiveSubscription(outer, conduit) {
                    $0.receiveSubscription(sink, outer) { $0.request(outer, .unlimited) }
                    $0.request(conduit, .max(1))
                }
            }
        }
        script.value(outer) {
            $0.subscribe(child, side) { $0.receiveSubscription(side, childConduit) { $0.request(childConduit, .unlimited) } }
        }
        #expect(script.codes().isEmpty)
    }

    @Test func emptyHandsTheSameValueTypeSubscriptionToEverySubscriber() {
        var script = TraceScript()
        let empty = script.object("Empty", .publisher, tracked: false)
        let shared = script.object("Subscriptions.empty", .subscription, tracked: false)
        for _ in 0..<2 {
            let sink = script.object("Sink", .subscriber)
            script.subscribe(empty, sink) {
                $0.receiveSubscription(sink, shared) { $0.request(shared, .unlimited) }
                $0.complete(sink)
            }
            script.found(dead: sink, aliveAt: script.nextSeq - 1)
        }
        #expect(script.codes().isEmpty)
    }

    @Test func receiveOnDeliversSeriallyOnAnotherThread() {
        var script = TraceScript()
        let subject = script.object("PassthroughSubject", .publisher)
        let receiveOn = script.object("Publishers.ReceiveOn", .publisher, tracked: false)
        let sink = script.object("Sink", .subscriber)
        let inner = script.object("Publishers.ReceiveOn.Inner", .subscriber)
        let conduit = script.object("PassthroughSubject.Conduit", .subscription)
        script.subscribe(receiveOn, sink) {
            $0.subscribe(subject, inner) {
                $0.receiveSubscription(inner, conduit) {
                    $0.receiveSubscription(sink, inner) {
                        $0.request(inner, .unlimited) { $0.request(conduit, .unlimited) }
                    }
                }
            }
        }
        for _ in 0..<2 {
            script.thread = TraceScript.main
            script.value(inner)
            script.thread = TraceScript.worker
            script.value(sink)
        }
        script.thread = TraceScript.main
        script.complete(inner)
        script.thread = TraceScript.worker
        script.complete(sink)
        #expect(script.codes().isEmpty)
    }

    @Test func aSubscriberAskingOneAtATimeIsNotStalled() {
        var script = TraceScript()
        let subject = script.object("PassthroughSubject", .publisher)
        let subscriber = script.object("OneAtATime", .subscriber)
        let conduit = script.object("PassthroughSubject.Conduit", .subscription)
        script.subscribe(subject, subscriber) { $0.receiveSubscription(subscriber, conduit) { $0.request(conduit, .max(1)) } }
        script.value(subscriber, returning: .max(1))
        script.value(subscriber, returning: .max(1))
        #expect(script.codes().isEmpty)
    }

    @Test func anUnansweredForwardedSubscribeOfAValueTypeClaimsNothing() {
        var script = TraceScript()
        let deferred = script.object("Deferred", .publisher, tracked: false)
        let inner = script.object("PassthroughSubject", .publisher)
        let sink = script.object("Sink", .subscriber)
        let wrapper = script.object("AnySubscriber", .subscriber, tracked: false)
        let conduit = script.object("PassthroughSubject.Conduit", .subscription)
        script.subscribe(deferred, sink) {
            $0.subscribe(inner, wrapper) { $0.receiveSubscription(sink, conduit) { $0.request(conduit, .unlimited) } }
        }
        #expect(script.codes().isEmpty)
    }

    /// OpenCombine's `map`, `compactMap` and `filter` are structs that hand the subject's
    /// conduit straight down: every hop holds the same subscription, and the sink's request
    /// is the demand of all of them.
    @Test func mapAndFilterHandTheirUpstreamSubscriptionStraightThrough() {
        var script = TraceScript()
        let subject = script.object("PassthroughSubject", .publisher)
        let filter = script.object("Publishers.Filter", .publisher, tracked: false)
        let map = script.object("Publishers.Map", .publisher, tracked: false)
        let sink = script.object("Sink", .subscriber)
        let filterInner = script.object("Publishers.Filter.Inner", .subscriber, tracked: false)
        let mapInner = script.object("Publishers.Map.Inner", .subscriber, tracked: false)
        let conduit = script.object("PassthroughSubject.Conduit", .subscription)
        script.subscribe(filter, sink) {
            $0.subscribe(map, filterInner) {
                $0.subscribe(subject, mapInner) {
                    $0.receiveSubscription(mapInner, conduit) {
                        $0.receiveSubscription(filterInner, conduit) {
                            $0.receiveSubscription(sink, conduit) { $0.request(conduit, .unlimited) }
                        }
                    }
                }
            }
        }
        script.value(mapInner) { $0.value(filterInner, returning: .max(1)) }
        script.value(mapInner) { $0.value(filterInner) { $0.value(sink) } }
        script.cancel(conduit) // 25, 26
        let lifecycles = TraceLifecycles(script.trace())
        let hops = [mapInner, filterInner, sink].map { lifecycles.lifecycles(ofSubscriber: $0)[0] }
        #expect(hops.map(\.totalDemand) == [.unlimited, .unlimited, .unlimited])
        #expect(hops.map(\.cancels) == [[25], [25], [25]])
        #expect(hops[2].upstream == [hops[1].id])
        #expect(hops[1].upstream == [hops[0].id])
        #expect(hops.map(\.subscriberRelaysDownstream) == [true, true, false])
        let diagnoses = TraceAnalyzer().diagnose(script.trace())
        #expect(diagnoses.isEmpty, "\(diagnoses.map(\.code))")
    }
}
