import LifelineLog

/// How an object's work ended by a given event, each ending call having returned: it was the
/// subscription of a hop that was cancelled; or every hop in which it was the subscriber or the
/// subscription had completed or been cancelled, or still ran for a pipeline whose every
/// downstream hop had been cancelled. An object whose work is over this way has nothing left
/// to do: a loop or a publisher that still holds it is what keeps it alive.
///
/// A subscriber whose upstream completed may still serve its own subscriber (a `flatMap`'s
/// inner publishers), so only the end of every hop ends it; a subscription that was cancelled
/// was told to stop by the only subscriber it serves.
struct HopEnding: Hashable, Sendable {
    /// How the work ended.
    enum Way: Hashable, Sendable {
        /// Its last hop completed.
        case completed
        /// Its hop was cancelled.
        case cancelled
        /// Its hop still ran, but every hop downstream of it, which it was made to serve, had
        /// been cancelled.
        case orphaned
    }

    /// The object whose work ended.
    let object: TraceObjectID
    /// The event that ended it: a completion, or a cancel's `begin` (for ``Way/orphaned``, the
    /// last downstream cancel).
    let seq: UInt64
    /// How it ended.
    let way: Way

    /// How `object`'s work ended by event `seq`, or `nil` when it took part in no hop, or it
    /// still had work then.
    init?(of object: TraceObjectID, before seq: UInt64, in lifecycles: TraceLifecycles) {
        func began(_ hop: Lifecycle) -> Bool { (hop.subscribeCall ?? hop.subscriptionCall ?? .max) <= seq }
        func ending(_ hop: Lifecycle, depth: Int = 0) -> (seq: UInt64, way: Way)? {
            if let end = hop.end {
                guard let returned = lifecycles.calls.call(at: end)?.end, returned <= seq else { return nil }
                return (end, hop.completions.first?.seq == end ? .completed : .cancelled)
            }
            guard depth < 16, !hop.downstream.isEmpty else { return nil }
            var last: UInt64 = 0
            for id in hop.downstream {
                guard let downstream = ending(lifecycles.lifecycle(id), depth: depth + 1), downstream.way != .completed
                else { return nil }
                last = max(last, downstream.seq)
            }
            return (last, .orphaned)
        }
        let asSubscription = lifecycles.lifecycles(ofSubscription: object).filter(began)
        if let last = asSubscription.last, let end = ending(last), end.way == .cancelled {
            (self.object, self.seq, self.way) = (object, end.seq, .cancelled)
            return
        }
        var last: (seq: UInt64, way: Way)?
        for hop in lifecycles.lifecycles(ofSubscriber: object).filter(began) + asSubscription {
            guard let end = ending(hop) else { return nil }
            if end.seq > (last?.seq ?? 0) { last = end }
        }
        guard let last else { return nil }
        (self.object, self.seq, self.way) = (object, last.seq, last.way)
    }

    /// `completed at @12`, `cancelled at @12`, or `still subscribed though its pipeline was
    /// cancelled at @12`.
    var phrase: String {
        switch way {
        case .completed: return "completed at @\(seq)"
        case .cancelled: return "cancelled at @\(seq)"
        case .orphaned: return "still subscribed though its pipeline was cancelled at @\(seq)"
        }
    }
}
