extension Trace {
    /// Whether, where the events end, some subscriber was still subscribed: it was subscribed
    /// or handed a subscription, and neither received a completion, nor had that subscription
    /// cancelled, nor was it (or the subscription) deallocated. What the recorder's watchdog
    /// asks of the log written so far before it calls a quiet program hung: a program with no
    /// pipeline open is idle, not waiting.
    package var hasOpenSubscriptions: Bool {
        var open = Set<TraceObjectID>()
        var subscriberOf: [TraceObjectID: TraceObjectID] = [:]
        for event in events where event.phase != .end {
            switch event.kind {
            case .subscribe(_, let subscriber):
                open.insert(subscriber)
            case .receiveSubscription(let subscriber, let subscription):
                open.insert(subscriber)
                subscriberOf[subscription] = subscriber
            case .completion(let subscriber, _):
                open.remove(subscriber)
            case .cancel(let subscription):
                if let subscriber = subscriberOf[subscription] { open.remove(subscriber) }
            case .deallocation(let object, _):
                open.remove(object)
                if let subscriber = subscriberOf[object] { open.remove(subscriber) }
            case .request, .value, .mark:
                break
            }
        }
        return !open.isEmpty
    }
}
