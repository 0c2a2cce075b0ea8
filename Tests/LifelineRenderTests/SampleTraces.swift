import LifelineAnalysis
import LifelineLog

/// Hand-built traces shaped like what the recorder writes, one per story the renderers
/// must tell.
enum SampleTraces {
    /// `subject.map { $0 * 2 }.sink { }` in automatic mode: three values, then finished.
    /// `Map.Inner` is both the subscriber of the subject and the subscription of the sink.
    static var mapChain: Trace {
        var script = TraceScript()
        script.processName = "map-chain"
        let subject = script.object(1, .publisher, "PassthroughSubject")
        let map = script.object(2, .publisher, "Publishers.Map", tracked: false)
        let sink = script.object(3, .subscriber, "Subscribers.Sink")
        let inner = script.object(4, .subscriber, "Publishers.Map.Inner")
        let conduit = script.object(5, .subscription, "PassthroughSubject.Conduit")
        script.subscribeThroughOperator(source: subject, operator: map, inner: inner, conduit: conduit, sink: sink)
        for value in 1...3 {
            script.call(.value(subscriber: inner, returnedDemand: nil, value: "\(value)")) {
                $0.call(.value(subscriber: sink, returnedDemand: nil, value: "\(value * 2)"))
            }
        }
        script.call(.completion(subscriber: inner, completion: .finished)) {
            $0.call(.completion(subscriber: sink, completion: .finished))
        }
        script.event(.instant, .deallocation(object: conduit, evidence: .observed(aliveAtSeq: 28)))
        script.event(.instant, .deallocation(object: inner, evidence: .observed(aliveAtSeq: 28)))
        script.event(.instant, .deallocation(object: sink, evidence: .observed(aliveAtSeq: 28)))
        return script.trace
    }

    /// `subject.receive(on: queue).sink { }`: each value hops from the main thread to a
    /// queue, and the sink's subscriber is released early while the subject still sends.
    static var receiveOnQueue: Trace {
        var script = TraceScript()
        script.processName = "receive-on"
        script.threads[2] = TraceThread(tid: 2, name: "thread 2")
        script.queues[1] = TraceQueue(id: 1, label: "com.example.feed")
        let subject = script.object(1, .publisher, "CurrentValueSubject")
        let receiveOn = script.object(2, .publisher, "Publishers.ReceiveOn", tracked: false)
        let sink = script.object(3, .subscriber, "Subscribers.Sink", label: "feed")
        let inner = script.object(4, .subscriber, "Publishers.ReceiveOn.Inner")
        let conduit = script.object(5, .subscription, "CurrentValueSubject.Conduit")
        script.call(.subscribe(publisher: receiveOn, subscriber: sink)) {
            $0.call(.subscribe(publisher: subject, subscriber: inner)) {
                $0.call(.receiveSubscription(subscriber: inner, subscription: conduit)) {
                    $0.call(.receiveSubscription(subscriber: sink, subscription: inner)) {
                        $0.call(.request(subscription: inner, demand: .max(2))) {
                            $0.call(.request(subscription: conduit, demand: .max(2)))
                        }
                    }
                }
            }
        }
        for value in ["\"a\"", "\"b\""] {
            script.thread = 1
            script.queue = nil
            script.call(.value(subscriber: inner, returnedDemand: nil, value: value))
            script.thread = 2
            script.queue = 1
            script.call(.value(subscriber: sink, returnedDemand: nil, value: value), returning: .max(1)) {
                $0.call(.request(subscription: inner, demand: .max(1))) {
                    $0.call(.request(subscription: conduit, demand: .max(1)))
                }
            }
        }
        script.thread = 1
        script.queue = nil
        script.event(.instant, .mark(label: "view disappeared"))
        script.call(.cancel(subscription: inner)) {
            $0.call(.cancel(subscription: conduit))
        }
        script.event(.instant, .deallocation(object: sink, evidence: .observed(aliveAtSeq: 33)))
        return script.trace
    }

    /// A diagnosis about the receive-on story, citing the cancel and the deallocation.
    static var receiveOnDiagnoses: [Diagnosis] {
        [Diagnosis(
            code: "cancelled-with-demand-outstanding", severity: .warning,
            objects: [TraceObjectID(3)], evidence: [30, 34],
            message: "Sink \"feed\" #3 was cancelled while it still had demand for 2 values.",
            fix: "Keep the AnyCancellable for as long as the view shows the feed."
        )]
    }

    /// A labelled hop in operator mode delivering 1,000 values: folding keeps it short.
    static var thousandValues: Trace {
        var script = TraceScript()
        script.processName = "thousand-values"
        let subject = script.object(1, .publisher, "PassthroughSubject")
        let sink = script.object(2, .subscriber, "Subscribers.Sink", label: "counter")
        let proxy = script.object(3, .subscription, "LifelineSubscription", label: "counter")
        script.call(.subscribe(publisher: subject, subscriber: sink)) {
            $0.call(.receiveSubscription(subscriber: sink, subscription: proxy)) {
                $0.call(.request(subscription: proxy, demand: .unlimited))
            }
        }
        for value in 1...1_000 {
            script.call(.value(subscriber: sink, returnedDemand: nil, value: "\(value)"))
        }
        script.call(.completion(subscriber: sink, completion: .failure("CounterError.overflow")))
        script.event(.instant, .deallocation(object: proxy, evidence: .exact))
        return script.trace
    }

    /// Every label, name and value is hostile text.
    static let hostileText = "quote\" back\\slash <tag>&amp; new\nline\r tab\t bell\u{07} nul\u{0} del\u{7F} "
        + "#35; ;%% --> -->> @enduml \\n **b** //i// 🧵 \u{202E}rtl "
        + String(repeating: "x", count: 20_000)

    static var hostile: Trace {
        var script = TraceScript()
        script.processName = hostileText
        script.threads[1] = TraceThread(tid: 1, name: hostileText)
        script.threads[2] = TraceThread(tid: 2, name: "worker")
        script.queues[1] = TraceQueue(id: 1, label: hostileText)
        let subject = TraceObjectID(1), sink = TraceObjectID(2), proxy = TraceObjectID(3)
        for (id, role) in [(subject, TraceObjectRole.publisher), (sink, .subscriber), (proxy, .subscription)] {
            script.objects[id] = TraceObject(id: id, role: role, typeName: hostileText, shortTypeName: hostileText,
                                             label: hostileText, sourceLocation: TraceSourceLocation(fileAndLine: hostileText), lifetimeTracked: true)
        }
        script.call(.subscribe(publisher: subject, subscriber: sink)) {
            $0.call(.receiveSubscription(subscriber: sink, subscription: proxy)) {
                $0.call(.request(subscription: proxy, demand: .max(1)))
            }
        }
        script.event(.instant, .mark(label: hostileText))
        script.thread = 2
        script.queue = 1
        script.call(.value(subscriber: sink, returnedDemand: nil, value: hostileText))
        script.call(.completion(subscriber: sink, completion: .failure(hostileText)))
        script.event(.instant, .deallocation(object: proxy, evidence: .exact))
        return script.trace
    }

    static var hostileDiagnoses: [Diagnosis] {
        [Diagnosis(code: hostileText, severity: .error, objects: [TraceObjectID(2)], evidence: [7, 9],
                   message: hostileText, fix: hostileText)]
    }
}

extension SampleTraces {
    /// What a log cut short looks like: a return whose call began before recording, a call
    /// that never returns inside one that does, and a subscription still open at the end.
    static var damaged: Trace {
        var script = TraceScript()
        script.processName = "damaged"
        let subject = script.object(1, .publisher, "PassthroughSubject")
        let sink = script.object(2, .subscriber, "Subscribers.Sink")
        let conduit = script.object(3, .subscription, "PassthroughSubject.Conduit")
        script.event(.end, .value(subscriber: sink, returnedDemand: .max(1), value: "lost"))
        script.event(.begin, .subscribe(publisher: subject, subscriber: sink))
        script.event(.begin, .receiveSubscription(subscriber: sink, subscription: conduit))
        script.event(.begin, .request(subscription: conduit, demand: .max(1)))
        script.event(.end, .subscribe(publisher: subject, subscriber: sink))
        script.event(.begin, .value(subscriber: sink, returnedDemand: nil, value: "1"))
        return script.trace
    }

    /// Two sinks on one subject, the second subscribed after the first.
    static var twoSubscribers: Trace {
        var script = TraceScript()
        let subject = script.object(1, .publisher, "PassthroughSubject")
        for (sinkID, conduitID) in [(2, 3), (4, 5)] as [(UInt64, UInt64)] {
            let sink = script.object(sinkID, .subscriber, "Subscribers.Sink")
            let conduit = script.object(conduitID, .subscription, "PassthroughSubject.Conduit")
            script.call(.subscribe(publisher: subject, subscriber: sink)) {
                $0.call(.receiveSubscription(subscriber: sink, subscription: conduit))
            }
        }
        return script.trace
    }

    /// `subject.receive(on: queue).sink { }` delivering `count` values, each hopping from
    /// the main thread to the queue.
    static func threadHops(_ count: Int) -> Trace {
        var script = TraceScript()
        script.threads[2] = TraceThread(tid: 2, name: "thread 2")
        script.queues[1] = TraceQueue(id: 1, label: "com.example.feed")
        let subject = script.object(1, .publisher, "PassthroughSubject")
        let sink = script.object(3, .subscriber, "Subscribers.Sink")
        let inner = script.object(4, .subscriber, "Publishers.ReceiveOn.Inner")
        let conduit = script.object(5, .subscription, "PassthroughSubject.Conduit")
        script.call(.subscribe(publisher: subject, subscriber: inner)) {
            $0.call(.receiveSubscription(subscriber: inner, subscription: conduit))
        }
        script.call(.receiveSubscription(subscriber: sink, subscription: inner))
        for value in 1...count {
            script.thread = 1
            script.queue = nil
            script.call(.value(subscriber: inner, returnedDemand: nil, value: "\(value)"))
            script.thread = 2
            script.queue = 1
            script.call(.value(subscriber: sink, returnedDemand: nil, value: "\(value)"))
        }
        return script.trace
    }

    /// Six alike pipelines (a sink subscribed to a subject, then cancelled) subscribed inside
    /// a sink's `receive(completion:)`, as a completion handler starts the next work: the fold
    /// row `× 5 pipelines like this` comes right before that call returns, which ends its
    /// activation with no arrow.
    static var repeatedInsideACall: Trace {
        var script = TraceScript()
        script.processName = "repeated-inside-a-call"
        let just = script.object(1, .publisher, "Just")
        let handler = script.object(2, .subscriber, "Subscribers.Sink")
        let inner = script.object(3, .subscription, "Just.Inner")
        let subject = script.object(4, .publisher, "PassthroughSubject")
        script.call(.subscribe(publisher: just, subscriber: handler)) {
            $0.call(.receiveSubscription(subscriber: handler, subscription: inner))
        }
        script.call(.completion(subscriber: handler, completion: .finished)) {
            for round in 0..<6 {
                let sink = $0.object(UInt64(5 + 2 * round), .subscriber, "Subscribers.Sink")
                let conduit = $0.object(UInt64(6 + 2 * round), .subscription, "PassthroughSubject.Conduit")
                $0.call(.subscribe(publisher: subject, subscriber: sink)) {
                    $0.call(.receiveSubscription(subscriber: sink, subscription: conduit)) {
                        $0.call(.request(subscription: conduit, demand: .unlimited))
                    }
                }
                $0.call(.cancel(subscription: conduit))
            }
        }
        return script.trace
    }
}
