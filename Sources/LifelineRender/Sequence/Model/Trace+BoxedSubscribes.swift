import LifelineLog

extension Trace {
    /// The trace with the return of each `subscribe` to a value-type publisher (a `Deferred`,
    /// a `Just`: a struct, boxed afresh for each hook call, so its return can name another
    /// object than its call) naming the publisher its call named.
    ///
    /// Such a return closes the innermost `subscribe` its subscriber is in on its thread: a
    /// `Deferred` hands its subscriber on to the publisher it makes, so the subscriber is in
    /// both calls, and the inner one returns first. Without this, the return of the inner call
    /// named the outer box and closed the outer call, and the outer call's return named a box
    /// seen nowhere else, which got a lane of its own showing only that return.
    func pairingBoxedSubscribeReturns() -> Trace {
        var open: [UInt64: [(publisher: TraceObjectID, subscriber: TraceObjectID)]] = [:]
        var renamed: [(index: Int, publisher: TraceObjectID)] = []
        for (index, event) in events.enumerated() {
            guard case .subscribe(let publisher, let subscriber) = event.kind else { continue }
            switch event.phase {
            case .begin:
                open[event.thread, default: []].append((publisher, subscriber))
            case .end:
                guard let calls = open[event.thread], let innermost = calls.lastIndex(where: { $0.subscriber == subscriber }) else { continue }
                var closed = innermost
                if calls[innermost].publisher != publisher {
                    if objects[publisher]?.lifetimeTracked == false {
                        renamed.append((index, calls[innermost].publisher))
                    } else if let exact = calls.lastIndex(where: { $0.publisher == publisher && $0.subscriber == subscriber }) {
                        closed = exact
                    } else {
                        continue
                    }
                }
                // Calls made inside the closed one that never returned are closed with it.
                open[event.thread]?.removeSubrange(closed...)
            case .instant:
                break
            }
        }
        guard !renamed.isEmpty else { return self }
        var events = events
        for (index, publisher) in renamed {
            let event = events[index]
            guard case .subscribe(_, let subscriber) = event.kind else { continue }
            events[index] = TraceEvent(seq: event.seq, time: event.time, thread: event.thread, queue: event.queue, phase: event.phase,
                                       kind: .subscribe(publisher: publisher, subscriber: subscriber), callSite: event.callSite)
        }
        return Trace(header: header, objects: objects, threads: threads, queues: queues, events: events, snapshots: snapshots,
                     damage: damage, callSites: callSites, hangs: hangs)
    }
}
