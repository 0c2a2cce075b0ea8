import LifelineLog

/// What one hop of a pipeline still open when its log ended was waiting on: the next hops
/// upstream it waited on, or why the waiting ends at it.
///
/// Read from the end of a pipeline upstream. A hop whose subscriber has demand outstanding
/// waits on the hops that feed it; with several (a `zip`'s sides), on those that received the
/// fewest values, since the others are ahead of them. The chain ends at the hop that cannot
/// move: a call into it that never returned, a subscriber that asked for nothing or for no
/// more, a subscription never handed over, a hop upstream that ended, or a publisher that
/// sent nothing more although it was asked.
struct HopWait: Sendable {
    /// Why the chain ends at a hop, or that it goes on upstream.
    enum Reason: Sendable {
        /// The hop waits on these hops upstream.
        case upstream([HopWait])
        /// A call on the hop began and never returned: its `begin` event.
        case callInProgress(UInt64)
        /// The subscriber was subscribed and never received a subscription.
        case noSubscription
        /// The subscriber never asked for a value.
        case neverRequested
        /// The subscriber received every value it asked for and asked for no more.
        case demandUsedUp
        /// The hops upstream had all ended; the one that ended last.
        case upstreamEnded(Lifecycle)
        /// The hop asked its publisher for values, and the publisher sent nothing more.
        case silentPublisher
    }

    /// The hop.
    let lifecycle: Lifecycle
    /// What it waits on.
    let reason: Reason
    /// The hops upstream that feed this one too and that it does not wait on: they received
    /// more values than those it waits on, and are still open.
    private(set) var ahead: [Lifecycle] = []

    /// The wait of `lifecycle`, a hop still open when the log ended, and of every hop it waits on.
    init(_ lifecycle: Lifecycle, in lifecycles: TraceLifecycles) {
        var visited: Set<Lifecycle.ID> = []
        self.init(lifecycle, in: lifecycles, visited: &visited)
    }

    private init(_ lifecycle: Lifecycle, in lifecycles: TraceLifecycles, visited: inout Set<Lifecycle.ID>) {
        visited.insert(lifecycle.id)
        self.lifecycle = lifecycle
        if let call = Self.callsInProgress(of: lifecycle, in: lifecycles).last {
            reason = .callInProgress(call)
        } else if lifecycle.state == .awaitingSubscription {
            reason = .noSubscription
        } else if lifecycle.totalDemand == .none {
            reason = .neverRequested
        } else if lifecycle.outstandingDemand == .none {
            reason = .demandUsedUp
        } else {
            let upstream = lifecycle.upstream.filter { !visited.contains($0) }.map(lifecycles.lifecycle)
            let open = upstream.filter { $0.end == nil && ($0.state == .subscribed || $0.state == .awaitingSubscription) }
            if let fewest = open.map(\.deliveries.count).min() {
                var waits: [HopWait] = []
                for hop in open where hop.deliveries.count == fewest {
                    waits.append(HopWait(hop, in: lifecycles, visited: &visited))
                }
                reason = .upstream(waits)
                ahead = open.filter { $0.deliveries.count > fewest }
            } else if let ended = upstream.max(by: { ($0.end ?? 0) < ($1.end ?? 0) }), ended.end != nil {
                reason = .upstreamEnded(ended)
            } else {
                reason = .silentPublisher
            }
        }
    }

    /// The `begin` events of the calls on `lifecycle` that never returned in the log, in order.
    static func callsInProgress(of lifecycle: Lifecycle, in lifecycles: TraceLifecycles) -> [UInt64] {
        lifecycle.events.filter { seq in
            guard let call = lifecycles.calls.call(at: seq) else { return false }
            return call.begin == seq && call.end == nil
        }
    }

    /// This hop and every hop it waits on, each branch in turn.
    var hops: [HopWait] {
        guard case .upstream(let waits) = reason else { return [self] }
        return [self] + waits.flatMap(\.hops)
    }

    /// The hops where the chain ends, from the first branch to the last.
    var stuck: [HopWait] {
        guard case .upstream(let waits) = reason else { return [self] }
        return waits.flatMap(\.stuck)
    }

    /// Whether the log proves the hop cannot move by itself (a call that never returned, a
    /// subscriber that asks for nothing), rather than waiting for a publisher that may still send.
    var provesAStall: Bool {
        switch reason {
        case .callInProgress, .neverRequested, .demandUsedUp: return true
        case .upstream, .noSubscription, .upstreamEnded, .silentPublisher: return false
        }
    }
}
