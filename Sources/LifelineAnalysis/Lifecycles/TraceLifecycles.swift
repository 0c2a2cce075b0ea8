import LifelineLog

/// The lifecycles of every subscription in a trace, rebuilt from its events.
///
/// This is where the handshake's rules meet the log:
/// - A subscriber is identified by the events' roles, not by an object's declared role: an
///   operator's stage (such as `tryMap`'s `Inner`) is the subscriber of the hop upstream and the
///   subscription of the hop downstream.
/// - `subscribe(_:)` starts a lifecycle. A subscribe of the same subscriber nested inside an
///   unanswered one (a publisher forwarding the subscriber, as `Deferred` does) joins it.
/// - `receive(subscription:)` answers the subscriber's awaiting lifecycle; with none awaiting
///   it starts a new one.
/// - An operator may hand its upstream subscription straight to its downstream (OpenCombine's
///   `map` and `filter` do): the downstream `receive(subscription:)` of the same subscription
///   runs inside the upstream one. Such hops share the subscription, so a request or cancel
///   on it counts for every one of them.
/// - Requests and cancels go to the lifecycle that holds the subscription. A value-type
///   subscription (such as `Subscriptions.empty`) can be handed to many subscribers: a call made
///   inside one of their `receive` calls goes to that one, otherwise to the latest live one.
/// - Values and completions go to the subscriber's earliest lifecycle still running; when it
///   has several running (it was subscribed twice), to the one whose call the delivery is
///   nested in (a value sent inside a `request(_:)` on the second subscription is the second's).
/// - Deallocations are kept per object; value types never get one.
///
/// ```swift
/// let lifecycles = TraceLifecycles(trace)
/// for lifecycle in lifecycles.lifecycles { print(lifecycle.hop, lifecycle.state) }
/// ```
public struct TraceLifecycles: Sendable {
    /// The trace the lifecycles were rebuilt from.
    public let trace: Trace
    /// The trace's calls and their nesting.
    public let calls: TraceCalls
    /// Every lifecycle, in the order they began.
    public private(set) var lifecycles: [Lifecycle] = []
    /// Every recorded death, by object.
    public private(set) var deallocations: [TraceObjectID: Deallocation] = [:]

    private var bySubscriber: ObjectTable<[Lifecycle.ID]>
    private var bySubscription: ObjectTable<[Lifecycle.ID]>
    /// Which lifecycles hold which subscription, to answer "does it hold it" at once when a
    /// value-type subscription (such as `Subscriptions.empty`) is handed to thousands.
    private var holdings: Set<Holding> = []
    private var byEvent: LifecycleOfEvent
    private var firstSeen: ObjectTable<UInt64>
    /// Hops that share one subscription handed down a chain, by the first hop of the chain.
    private var sharingRoot: [Lifecycle.ID: Lifecycle.ID] = [:]
    private var sharingMembers: [Lifecycle.ID: [Lifecycle.ID]] = [:]
    private var sharedUpstream: [Lifecycle.ID: Lifecycle.ID] = [:]
    /// For each subscriber, how many of its lifecycles, from the first, have ended: none of
    /// them can receive anything any more.
    private var endedPrefix: ObjectTable<Int>
    private var received = ReceivedSubscriptions([], deallocations: [:])
    private let positions: EventPositions
    /// The ownership graphs the rules built last, shared between them.
    let recentGraphs = RecentOwnershipGraphs()

    /// Rebuilds the lifecycles of `trace`.
    public init(_ trace: Trace) {
        self.trace = trace
        calls = TraceCalls(trace.events)
        positions = EventPositions(trace.events)
        byEvent = LifecycleOfEvent(positions: positions)
        // Objects are found by id in tables rather than hashed, several times per event.
        bySubscriber = ObjectTable(objectCount: trace.objects.count)
        (bySubscription, firstSeen, endedPrefix) = (bySubscriber.emptyCopy(), bySubscriber.emptyCopy(), bySubscriber.emptyCopy())
        for event in trace.events {
            event.kind.forEachObject { object in
                if firstSeen[object] == nil { firstSeen[object] = event.seq }
            }
            apply(event)
        }
        link()
        received = ReceivedSubscriptions(lifecycles, deallocations: deallocations)
    }

    // MARK: Queries

    /// The lifecycle numbered `id`.
    public func lifecycle(_ id: Lifecycle.ID) -> Lifecycle {
        lifecycles[id.rawValue]
    }

    /// The lifecycles in which `object` was the subscriber, in order.
    public func lifecycles(ofSubscriber object: TraceObjectID) -> [Lifecycle] {
        bySubscriber[object, default: []].map(lifecycle)
    }

    /// The numbers of the lifecycles in which `object` was the subscriber, in order.
    public func lifecycleIDs(ofSubscriber object: TraceObjectID) -> [Lifecycle.ID] {
        bySubscriber[object, default: []]
    }

    /// The lifecycles in which `object` was the subscription, in order.
    public func lifecycles(ofSubscription object: TraceObjectID) -> [Lifecycle] {
        bySubscription[object, default: []].map(lifecycle)
    }

    /// Whether `object` is the subscription of one hop only, or of the hops of one chain it was
    /// handed down (a `filter` passing its upstream's subscription on to a `sink`), and no
    /// subscriber: what one subscribe made. A value-type subscription such as
    /// `Subscriptions.empty` is one object to every subscriber that gets it, so it is not.
    func isSubscriptionOfOneChain(_ object: TraceObjectID) -> Bool {
        let holders = bySubscription[object, default: []]
        guard let first = holders.first, bySubscriber[object, default: []].isEmpty else { return false }
        return holders.count == 1 || holders.count == sharing(first).count
    }

    /// The lifecycle a call event (`begin` or `end`) belongs to.
    public func lifecycle(ofEvent seq: UInt64) -> Lifecycle? {
        byEvent[seq].map(lifecycle)
    }

    /// The number of the lifecycle a call event (`begin` or `end`) belongs to.
    public func lifecycleID(ofEvent seq: UInt64) -> Lifecycle.ID? {
        byEvent[seq]
    }

    /// The event numbered `seq`.
    public func event(_ seq: UInt64) -> TraceEvent? {
        positions.event(seq)
    }

    /// The sequence number of the first event that mentions `object`.
    public func firstSeen(_ object: TraceObjectID) -> UInt64? {
        firstSeen[object]
    }

    /// Whether the log shows how recording ended: it was closed cleanly and dropped no events.
    /// Only then does a missing deallocation mean the object was still alive at the end.
    public var endIsKnown: Bool {
        Self.endIsKnown(trace.damage)
    }

    /// Whether a log with `damage` shows how recording ended.
    public static func endIsKnown(_ damage: [TraceDamage]) -> Bool {
        !damage.contains { damage in
            switch damage {
            case .notClosed, .droppedEvents, .eventCountMismatch: return true
            case .truncatedFinalLine, .unwrittenGap, .undeclaredObject, .undeclaredType, .undeclaredThread, .undeclaredQueue:
                return false
            }
        }
    }

    /// Whether `object` was provably alive when recording stopped: the end of the log is
    /// known, and either its lifetime is tracked and it has no deallocation event, or the
    /// snapshot taken at stop checked it and saw it alive. The second covers an object a
    /// snapshot found by heap inspection before the object joined a pipeline (a hand-written
    /// subscriber that a sink's closure captures, subscribed later), whose lifetime the
    /// recorder does not track.
    public func isAliveAtStop(_ object: TraceObjectID) -> Bool {
        guard endIsKnown, let declared = trace.object(object), deallocations[object] == nil else { return false }
        if declared.lifetimeTracked { return true }
        guard let stop = trace.snapshots.last, stop.reason == .stop, stop.checked(object) else { return false }
        return stop.node(object)?.alive == true
    }

    /// Whether `survivor` was provably still alive after the death `death` happened.
    ///
    /// Deaths found by a liveness check are only known to lie between the last check that saw
    /// the object alive and the event that reports it. Every check looks at every object, so
    /// a survivor seen alive by a later check than the last one that saw the other object
    /// alive (and after the other object existed) outlived it.
    public func provablyOutlived(_ survivor: TraceObjectID, _ death: Deallocation) -> Bool {
        guard trace.object(survivor)?.lifetimeTracked == true else { return false }
        guard let own = deallocations[survivor] else { return endIsKnown }
        guard let seenAlive = own.lastSeenAlive else { return own.seq > death.seq }
        guard let otherSeenAlive = death.lastSeenAlive else { return seenAlive > death.seq }
        return seenAlive > otherSeenAlive && seenAlive > firstSeen[death.object, default: .max]
    }

    /// Whether the lifecycle is where a pipeline ends: its subscriber acts as no other
    /// subscriber's subscription, and it was subscribed by the program's own code rather than
    /// by an operator: from outside any recorded call, or right inside a value or completion
    /// delivered to another pipeline's end (a `sink`'s closure or a hand-written subscriber
    /// that subscribes a pipeline). An operator that subscribes while a value or completion
    /// reaches it (`flatMap`, `switchToLatest`, `catch`, `retry`) passes values on, so what it
    /// subscribes is no pipeline's end.
    public func isPipelineEnd(_ lifecycle: Lifecycle) -> Bool {
        guard !lifecycle.subscriberRelaysDownstream,
              let first = lifecycle.subscribeCall ?? lifecycle.subscriptionCall,
              let call = calls.call(at: first) else { return false }
        guard let parent = call.parent else { return true }
        guard let delivery = event(parent), delivery.kind.isDelivery,
              let outer = self.lifecycle(ofEvent: parent), outer.id != lifecycle.id else { return false }
        return !outer.subscriberRelaysDownstream
    }

    // MARK: Building

    private mutating func apply(_ event: TraceEvent) {
        if event.phase == .end {
            guard let begin = calls.call(at: event.seq)?.begin, let id = byEvent[begin] else { return }
            switch event.kind {
            case .request, .cancel:
                for member in sharing(id) { record(event, in: member) }
            default:
                record(event, in: id)
            }
            byEvent[event.seq] = id
            if case .value(_, let returned?, _) = event.kind {
                if let index = lifecycles[id.rawValue].deliveries.lastIndex(where: { $0.begin == begin }) {
                    lifecycles[id.rawValue].deliveries[index].end = event.seq
                }
                if returned != .none {
                    lifecycles[id.rawValue].grants.append(.init(seq: event.seq, demand: returned, source: .returnedFromValue))
                }
            }
            return
        }
        switch event.kind {
        case .subscribe(let publisher, let subscriber):
            let id = forwardedLifecycle(of: subscriber, at: event.seq)
                ?? start(subscriber: subscriber, publisher: publisher, at: event.seq)
            if lifecycles[id.rawValue].subscribeCall == nil { lifecycles[id.rawValue].subscribeCall = event.seq }
            record(event, in: id)
        case .receiveSubscription(let subscriber, let subscription):
            let id = awaitingLifecycle(of: subscriber, at: event.seq)
                ?? start(subscriber: subscriber, publisher: nil, at: event.seq)
            lifecycles[id.rawValue].subscription = subscription
            lifecycles[id.rawValue].subscriptionCall = event.seq
            if let upstream = handingLifecycle(of: subscription, to: id, at: event.seq) { share(id, with: upstream) }
            bySubscription[subscription, default: []].append(id)
            holdings.insert(Holding(subscription: subscription, lifecycle: id))
            transition(id, to: .subscribed, at: event.seq)
            record(event, in: id)
        case .request(let subscription, let demand):
            guard let id = holder(of: subscription, at: event.seq) else { return }
            for member in sharing(id) {
                lifecycles[member.rawValue].grants.append(.init(seq: event.seq, demand: demand, source: .request))
                record(event, in: member)
            }
            byEvent[event.seq] = id
        case .cancel(let subscription):
            guard let id = holder(of: subscription, at: event.seq) else { return }
            for member in sharing(id) {
                lifecycles[member.rawValue].cancels.append(event.seq)
                transition(member, to: .cancelled, at: event.seq)
                record(event, in: member)
            }
            byEvent[event.seq] = id
        case .value(let subscriber, _, _):
            let id = receiver(subscriber, at: event.seq)
            lifecycles[id.rawValue].deliveries.append(.init(begin: event.seq, end: nil, thread: event.thread))
            record(event, in: id)
        case .completion(let subscriber, let completion):
            let id = receiver(subscriber, at: event.seq)
            lifecycles[id.rawValue].completions.append(.init(seq: event.seq, completion: completion))
            transition(id, to: .completed, at: event.seq)
            record(event, in: id)
        case .deallocation(let object, let evidence):
            let lastSeenAlive: UInt64?
            switch evidence {
            case .exact: lastSeenAlive = nil
            case .observed(let aliveAtSeq): lastSeenAlive = aliveAtSeq
            }
            if deallocations[object] == nil {
                deallocations[object] = Deallocation(object: object, seq: event.seq, lastSeenAlive: lastSeenAlive)
            }
            // A handful of lifecycles, sorted and with repeats left out, without hashing any.
            var affected = bySubscriber[object, default: []] + bySubscription[object, default: []]
            affected.sort()
            for (index, id) in affected.enumerated() where index == 0 || affected[index - 1] != id {
                lifecycles[id.rawValue].events.append(event.seq)
                transition(id, to: .deallocated, at: event.seq)
            }
        case .mark:
            break
        }
    }

    private mutating func start(subscriber: TraceObjectID, publisher: TraceObjectID?, at seq: UInt64) -> Lifecycle.ID {
        let id = Lifecycle.ID(lifecycles.count)
        lifecycles.append(Lifecycle(
            id: id, subscriber: subscriber, publisher: publisher,
            transitions: [.init(state: .awaitingSubscription, seq: seq)]
        ))
        bySubscriber[subscriber, default: []].append(id)
        return id
    }

    private mutating func record(_ event: TraceEvent, in id: Lifecycle.ID) {
        byEvent[event.seq] = id
        lifecycles[id.rawValue].events.append(event.seq)
        if !lifecycles[id.rawValue].threads.contains(event.thread) {
            lifecycles[id.rawValue].threads.append(event.thread)
            lifecycles[id.rawValue].threads.sort()
        }
    }

    /// Moves a lifecycle forward. Completed and cancelled are both ends: whichever comes
    /// first stays, and deallocated comes last.
    private mutating func transition(_ id: Lifecycle.ID, to state: Lifecycle.State, at seq: UInt64) {
        let current = lifecycles[id.rawValue].state
        let allowed: Bool
        switch state {
        case .awaitingSubscription: allowed = false
        case .subscribed: allowed = current == .awaitingSubscription
        case .completed, .cancelled: allowed = current == .awaitingSubscription || current == .subscribed
        case .deallocated: allowed = current != .deallocated
        }
        if allowed { lifecycles[id.rawValue].transitions.append(.init(state: state, seq: seq)) }
    }

    /// The lifecycle a nested subscribe of `subscriber` forwards to: an enclosing subscribe of
    /// the same subscriber still awaiting its subscription.
    private func forwardedLifecycle(of subscriber: TraceObjectID, at seq: UInt64) -> Lifecycle.ID? {
        let forwarding = calls.firstEnclosingCall(of: seq) { call in
            guard let id = byEvent[call.begin], case .subscribe(_, subscriber)? = event(call.begin)?.kind else { return false }
            return lifecycles[id.rawValue].subscription == nil
        }
        return forwarding.flatMap { byEvent[$0.begin] }
    }

    /// The lifecycle a `receive(subscription:)` answers: the enclosing subscribe's, else the
    /// subscriber's latest one still awaiting a subscription.
    private func awaitingLifecycle(of subscriber: TraceObjectID, at seq: UInt64) -> Lifecycle.ID? {
        if let id = forwardedLifecycle(of: subscriber, at: seq) { return id }
        return bySubscriber[subscriber, default: []].last { lifecycles[$0.rawValue].subscription == nil }
    }

    /// The lifecycle that handed `subscription` on to lifecycle `id`: one whose
    /// `receive(subscription:)` of the same subscription encloses this one.
    private func handingLifecycle(of subscription: TraceObjectID, to id: Lifecycle.ID, at seq: UInt64) -> Lifecycle.ID? {
        let handing = calls.firstEnclosingCall(of: seq) { call in
            guard case .receiveSubscription(_, subscription)? = event(call.begin)?.kind,
                  let outer = byEvent[call.begin] else { return false }
            return outer != id
        }
        return handing.flatMap { byEvent[$0.begin] }
    }

    /// Records that lifecycle `id` received the subscription `upstream` handed down.
    private mutating func share(_ id: Lifecycle.ID, with upstream: Lifecycle.ID) {
        let root = sharingRoot[upstream] ?? upstream
        if sharingRoot[upstream] == nil {
            sharingRoot[upstream] = root
            sharingMembers[root] = [upstream]
        }
        sharingRoot[id] = root
        sharingMembers[root, default: []].append(id)
        sharedUpstream[id] = upstream
    }

    /// The lifecycles that share lifecycle `id`'s subscription, `id` included.
    private func sharing(_ id: Lifecycle.ID) -> [Lifecycle.ID] {
        sharingRoot[id].flatMap { sharingMembers[$0] } ?? [id]
    }

    /// A lifecycle that received a subscription.
    private struct Holding: Hashable, Sendable {
        let subscription: TraceObjectID
        let lifecycle: Lifecycle.ID
    }

    /// The lifecycle holding `subscription` that a request or cancel at `seq` belongs to.
    private func holder(of subscription: TraceObjectID, at seq: UInt64) -> Lifecycle.ID? {
        let holders = bySubscription[subscription, default: []]
        guard holders.count > 1 else { return holders.first }
        let holding = calls.firstEnclosingCall(of: seq) { call in
            byEvent[call.begin].map { holdings.contains(Holding(subscription: subscription, lifecycle: $0)) } ?? false
        }
        if let id = holding.flatMap({ byEvent[$0.begin] }) { return id }
        return holders.last { lifecycles[$0.rawValue].end == nil } ?? holders.last
    }

    /// The lifecycle a value or completion for `subscriber` belongs to: the earliest one
    /// still running, else the latest one not completed, else the latest; a subscriber never
    /// seen before gets a lifecycle of its own. When several are running (a subscriber
    /// subscribed twice), the one whose call the delivery is nested in on its thread: a value
    /// sent inside a `request(_:)` on the second subscription is the second's.
    private mutating func receiver(_ subscriber: TraceObjectID, at seq: UInt64) -> Lifecycle.ID {
        let candidates = bySubscriber[subscriber, default: []]
        // Lifecycles that ended stay ended: skip them once, not at every value.
        var ended = endedPrefix[subscriber, default: 0]
        while ended < candidates.count, lifecycles[candidates[ended].rawValue].end != nil { ended += 1 }
        endedPrefix[subscriber] = ended
        if let first = candidates[ended...].firstIndex(where: isRunning) {
            // Another running one is rare: only then is the nesting looked for.
            if candidates[(first + 1)...].contains(where: isRunning),
               let nesting = nestingLifecycle(of: seq, among: candidates[first...].filter(isRunning)) {
                return nesting
            }
            return candidates[first]
        }
        let uncompleted = candidates.last {
            lifecycles[$0.rawValue].subscription != nil && lifecycles[$0.rawValue].completions.isEmpty
        }
        return uncompleted ?? candidates.last ?? start(subscriber: subscriber, publisher: nil, at: seq)
    }

    /// Whether lifecycle `id` has received a subscription and neither completed nor been
    /// cancelled.
    private func isRunning(_ id: Lifecycle.ID) -> Bool {
        lifecycles[id.rawValue].subscription != nil && lifecycles[id.rawValue].end == nil
    }

    /// The lifecycle among `running` whose call encloses event `seq` most closely on its
    /// thread: a `request(_:)` or `cancel()` on its subscription, its `receive(subscription:)`,
    /// or its subscribe call.
    private func nestingLifecycle(of seq: UInt64, among running: [Lifecycle.ID]) -> Lifecycle.ID? {
        var found: Lifecycle.ID?
        _ = calls.firstEnclosingCall(of: seq) { call in
            guard let kind = event(call.begin)?.kind else { return false }
            switch kind {
            case .request(let subscription, _), .cancel(let subscription):
                found = running.first { lifecycles[$0.rawValue].subscription == subscription }
            case .receiveSubscription(let subscriber, let subscription):
                found = running.first {
                    lifecycles[$0.rawValue].subscriber == subscriber && lifecycles[$0.rawValue].subscription == subscription
                }
            case .subscribe:
                found = running.first { lifecycles[$0.rawValue].subscribeCall == call.begin }
            default:
                found = nil
            }
            return found != nil
        }
        return found
    }

    /// Links hops: through objects that play both roles, and through subscribes nested
    /// directly inside another hop's subscribe call.
    private mutating func link() {
        var upstream: [Lifecycle.ID: Set<Lifecycle.ID>] = [:]
        for lifecycle in lifecycles {
            if let subscription = lifecycle.subscription {
                for id in bySubscriber[subscription, default: []] where id != lifecycle.id {
                    upstream[lifecycle.id, default: []].insert(id)
                }
            }
            if let handing = sharedUpstream[lifecycle.id] {
                upstream[lifecycle.id, default: []].insert(handing)
            }
            if let subscribe = lifecycle.subscribeCall, let parent = calls.call(at: subscribe)?.parent,
               let outer = byEvent[parent], outer != lifecycle.id,
               case .subscribe? = event(parent)?.kind,
               lifecycles[outer.rawValue].subscriber != lifecycle.subscriber {
                upstream[outer, default: []].insert(lifecycle.id)
            }
        }
        for (downstreamID, upstreamIDs) in upstream {
            lifecycles[downstreamID.rawValue].upstream = upstreamIDs.sorted()
            for id in upstreamIDs { lifecycles[id.rawValue].downstream.append(downstreamID) }
        }
        let handingOn = Set(sharedUpstream.values)
        for index in lifecycles.indices {
            lifecycles[index].downstream.sort()
            let id = lifecycles[index].id
            lifecycles[index].subscriberRelaysDownstream = bySubscription[lifecycles[index].subscriber] != nil
                || handingOn.contains(id)
        }
    }
}

extension TraceLifecycles {
    /// Which lifecycle each call event belongs to, kept by the event's position in the trace.
    private struct LifecycleOfEvent: Sendable {
        let positions: EventPositions
        private var ids: [Int32]

        init(positions: EventPositions) {
            self.positions = positions
            ids = [Int32](repeating: -1, count: positions.events.count)
        }

        subscript(seq: UInt64) -> Lifecycle.ID? {
            get {
                guard let position = positions.position(of: seq), ids[position] >= 0 else { return nil }
                return Lifecycle.ID(Int(ids[position]))
            }
            set {
                guard let position = positions.position(of: seq) else { return }
                ids[position] = newValue.map { Int32($0.rawValue) } ?? -1
            }
        }
    }

    /// The subscriber's earliest lifecycle that was still running (subscribed, neither
    /// completed nor cancelled, its subscriber and subscription alive) when `lifecycle`
    /// received its subscription: the subscriber then held two subscriptions at once.
    public func overlappedLifecycle(for lifecycle: Lifecycle) -> Lifecycle? {
        received.overlapped(lifecycle.id).map(self.lifecycle)
    }

    /// The subscriber's lifecycle that received a subscription just before `lifecycle` did,
    /// whether or not it was still running then.
    public func lifecycleReceived(before lifecycle: Lifecycle) -> Lifecycle? {
        received.previous(lifecycle.id).map(self.lifecycle)
    }
}
