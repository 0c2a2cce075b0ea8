import LifelineLog

/// What one hop of a pipeline still open when its log ended was waiting on: the next hops
/// upstream it waited on, or why the waiting ends at it.
///
/// Read from the end of a pipeline upstream. A hop whose subscriber has demand outstanding
/// waits on the hops that feed it; with several (a `zip`'s sides), on those that received the
/// fewest values, since the others are ahead of them; with none of them still open, on the one
/// that ended last. An operator's stage that asks for no more (or whose upstream ended) while
/// the publishers it subscribed for its values run (`flatMap(maxPublishers:)`) waits on those.
/// The chain ends at the hop that cannot move: a call into it that never returned, a
/// `receive(on:)` or `delay` stage holding values its scheduler has not run, a subscriber that
/// asked for nothing or for no more, a subscription never handed over, a hop that ended without
/// its end reaching the hop below, or a publisher that sent nothing more although it was asked.
struct HopWait: Sendable {
    /// Why the chain ends at a hop, or that it goes on upstream.
    enum Reason: Sendable {
        /// The hop waits on these hops upstream.
        case upstream([HopWait])
        /// The hop's subscriber, an operator's stage, asked for no more while the publishers it
        /// subscribed for its values run: it waits on their hops.
        case innerPublishers([HopWait])
        /// The hop's subscriber, an operator's stage that schedules what it passes on, received
        /// this many values that never reached the hop below it.
        case scheduledValues(Int)
        /// A call on the hop began and never returned: its `begin` event.
        case callInProgress(UInt64)
        /// The subscriber was subscribed and never received a subscription.
        case noSubscription
        /// The subscriber never asked for a value.
        case neverRequested
        /// The subscriber received every value it asked for and asked for no more.
        case demandUsedUp
        /// The hop completed or was cancelled, and that never reached the hop below it.
        case ended
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

    /// The wait of `lifecycle`, a hop still open when the log ended, and of every hop it waits
    /// on; `innerHops` are the trace's ``innerHops(in:)``.
    init(_ lifecycle: Lifecycle, in lifecycles: TraceLifecycles, innerHops: [UInt64: [Lifecycle.ID]]) {
        var visited: Set<Lifecycle.ID> = []
        self.init(lifecycle, below: nil, in: lifecycles, innerHops: innerHops, visited: &visited)
    }

    private init(
        _ lifecycle: Lifecycle, below: Lifecycle?, in lifecycles: TraceLifecycles, innerHops: [UInt64: [Lifecycle.ID]],
        visited: inout Set<Lifecycle.ID>
    ) {
        visited.insert(lifecycle.id)
        self.lifecycle = lifecycle
        // A stage that asks for no more, or whose upstream ended, still runs the publishers
        // it subscribed for its values.
        let inner = (lifecycle.outstandingDemand == .none || lifecycle.end != nil) && lifecycle.subscriberRelaysDownstream
            ? lifecycle.deliveries.flatMap { innerHops[$0.begin] ?? [] }.filter { !visited.contains($0) }
                .map(lifecycles.lifecycle).filter(Self.isOpen)
            : []
        if let call = Self.callsInProgress(of: lifecycle, in: lifecycles).last {
            reason = .callInProgress(call)
        } else if let below, let held = Self.scheduledValues(of: lifecycle, below: below, in: lifecycles) {
            reason = .scheduledValues(held)
        } else if !inner.isEmpty {
            var waits: [HopWait] = []
            for hop in inner {
                waits.append(HopWait(hop, below: nil, in: lifecycles, innerHops: innerHops, visited: &visited))
            }
            reason = .innerPublishers(waits)
        } else if lifecycle.end != nil {
            reason = .ended
        } else if lifecycle.state == .awaitingSubscription {
            reason = .noSubscription
        } else if lifecycle.totalDemand == .none {
            reason = .neverRequested
        } else if lifecycle.outstandingDemand == .none {
            reason = .demandUsedUp
        } else {
            let upstream = lifecycle.upstream.filter { !visited.contains($0) }.map(lifecycles.lifecycle)
            let open = upstream.filter(Self.isOpen)
            if let fewest = open.map(\.deliveries.count).min() {
                var waits: [HopWait] = []
                for hop in open where hop.deliveries.count == fewest {
                    waits.append(HopWait(hop, below: lifecycle, in: lifecycles, innerHops: innerHops, visited: &visited))
                }
                reason = .upstream(waits)
                ahead = open.filter { $0.deliveries.count > fewest }
            } else if let ended = upstream.filter({ $0.end != nil }).max(by: { ($0.end ?? 0) < ($1.end ?? 0) }) {
                reason = .upstream([HopWait(ended, below: lifecycle, in: lifecycles, innerHops: innerHops, visited: &visited)])
            } else {
                reason = .silentPublisher
            }
        }
    }

    /// Whether a hop was still open when the log ended: subscribed or awaiting its subscription,
    /// neither completed nor cancelled.
    private static func isOpen(_ lifecycle: Lifecycle) -> Bool {
        lifecycle.end == nil && (lifecycle.state == .subscribed || lifecycle.state == .awaitingSubscription)
    }

    /// How many values the stage of `lifecycle`, a `receive(on:)` or `delay` that is the only
    /// hop feeding `below`, received and never passed on to it; `nil` for another stage, or
    /// when it holds neither a value nor a completion.
    private static func scheduledValues(of lifecycle: Lifecycle, below: Lifecycle, in lifecycles: TraceLifecycles) -> Int? {
        guard below.upstream == [lifecycle.id], let type = lifecycles.trace.object(lifecycle.subscriber)?.shortTypeName,
              type.hasPrefix("ReceiveOn.") || type.hasPrefix("Delay.") else { return nil }
        let held = max(0, lifecycle.deliveries.count - below.deliveries.count)
        let heldCompletion = !lifecycle.completions.isEmpty && below.completions.isEmpty
        return held > 0 || heldCompletion ? held : nil
    }

    /// The hops subscribed directly inside a value delivered to another hop (the publishers
    /// `flatMap` makes for its values), by that delivery's `begin` event.
    static func innerHops(in lifecycles: TraceLifecycles) -> [UInt64: [Lifecycle.ID]] {
        var inner: [UInt64: [Lifecycle.ID]] = [:]
        for lifecycle in lifecycles.lifecycles {
            guard let subscribe = lifecycle.subscribeCall, let parent = lifecycles.calls.call(at: subscribe)?.parent,
                  case .value? = lifecycles.event(parent)?.kind else { continue }
            inner[parent, default: []].append(lifecycle.id)
        }
        return inner
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
        [self] + next.flatMap(\.hops)
    }

    /// The hops this one waits on, upstream or inner; none where the chain ends.
    var next: [HopWait] {
        switch reason {
        case .upstream(let waits), .innerPublishers(let waits): return waits
        default: return []
        }
    }

    /// The hops where the chain ends, from the first branch to the last.
    var stuck: [HopWait] {
        next.isEmpty ? [self] : next.flatMap(\.stuck)
    }

    /// Whether the log proves the hop cannot move by itself (a call that never returned, a
    /// subscriber that asks for nothing), rather than waiting for a publisher that may still send.
    var provesAStall: Bool {
        switch reason {
        case .callInProgress, .neverRequested: return true
        // An operator's stage that asks for no more may be waiting for its downstream or its
        // own work; only the end of a pipeline provably stopped asking.
        case .demandUsedUp: return !lifecycle.subscriberRelaysDownstream
        case .upstream, .innerPublishers, .scheduledValues, .noSubscription, .ended, .silentPublisher: return false
        }
    }
}
