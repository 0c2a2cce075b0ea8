import LifelineLog

/// Everything the log says about one subscription: one subscriber's handshake with one
/// publisher, from `subscribe(_:)` to its end.
///
/// A lifecycle begins when a subscriber is subscribed, or, when the log shows no subscribe
/// call, when the subscriber first receives a subscription or a value. A subscriber that is
/// subscribed again after its earlier subscription completed (as `retry` and `catch` do)
/// starts a new lifecycle, so one object can have several.
///
/// Build lifecycles with ``TraceLifecycles``; this is the one place where the rules of the
/// handshake are applied to a log.
public struct Lifecycle: Hashable, Sendable {
    /// A lifecycle's number in its trace: lifecycles are numbered in the order they began.
    public struct ID: Hashable, Comparable, Sendable, CustomStringConvertible {
        /// The lifecycle's index in ``TraceLifecycles/lifecycles``.
        public let rawValue: Int

        /// Wraps an index.
        public init(_ rawValue: Int) {
            self.rawValue = rawValue
        }

        public static func < (lhs: ID, rhs: ID) -> Bool {
            lhs.rawValue < rhs.rawValue
        }

        public var description: String { "L\(rawValue)" }
    }

    /// Where a subscription stands.
    public enum State: String, Hashable, Sendable {
        /// Subscribed, but no subscription received yet.
        case awaitingSubscription = "awaiting-subscription"
        /// The subscriber holds a subscription that has neither completed nor been cancelled.
        case subscribed
        /// The subscriber received a completion.
        case completed
        /// The subscription was cancelled.
        case cancelled
        /// The subscriber or the subscription was deallocated.
        case deallocated
    }

    /// A change of state, and the event that caused it.
    public struct Transition: Hashable, Sendable {
        /// The state entered.
        public let state: State
        /// The sequence number of the event that entered it.
        public let seq: UInt64
    }

    /// Demand the subscriber granted: by calling `request(_:)`, or by returning it from
    /// `receive(_:)`.
    public struct DemandGrant: Hashable, Sendable {
        /// How the demand was granted.
        public enum Source: String, Hashable, Sendable {
            /// A `request(_:)` call; `seq` is its `begin` event.
            case request
            /// The demand a `receive(_:)` call returned; `seq` is its `end` event.
            case returnedFromValue = "returned-from-value"
        }

        /// The event that granted it.
        public let seq: UInt64
        /// How much.
        public let demand: TraceDemand
        /// How.
        public let source: Source
    }

    /// One value delivered to the subscriber.
    public struct Delivery: Hashable, Sendable {
        /// The `begin` event of the `receive(_:)` call.
        public let begin: UInt64
        /// The `end` event, or `nil` when the call never returned in the log.
        public internal(set) var end: UInt64?
        /// The thread it was delivered on.
        public let thread: UInt64
    }

    /// One completion delivered to the subscriber.
    public struct CompletionDelivery: Hashable, Sendable {
        /// The `begin` event of the `receive(completion:)` call.
        public let seq: UInt64
        /// How it completed.
        public let completion: TraceEvent.Completion
    }

    /// The lifecycle's number.
    public let id: ID
    /// The subscriber.
    public let subscriber: TraceObjectID
    /// The publisher it was subscribed to, when the log shows the subscribe call.
    public internal(set) var publisher: TraceObjectID?
    /// The subscription it received, once it received one.
    public internal(set) var subscription: TraceObjectID?
    /// The `begin` event of the `subscribe(_:)` call, when the log has one.
    public internal(set) var subscribeCall: UInt64?
    /// The `begin` event of the `receive(subscription:)` call, once there is one.
    public internal(set) var subscriptionCall: UInt64?
    /// Whether the subscriber also acts as a subscription for another subscriber, or handed
    /// its subscription on to one: it is an operator's stage inside a pipeline, not the
    /// pipeline's end.
    public internal(set) var subscriberRelaysDownstream = false
    /// The lifecycle's lists, behind one reference: the analyses pass lifecycles around by
    /// value, and a copy then retains one box instead of nine arrays.
    private var lists: Lists

    init(id: ID, subscriber: TraceObjectID, publisher: TraceObjectID?, transitions: [Transition]) {
        self.id = id
        self.subscriber = subscriber
        self.publisher = publisher
        lists = Lists(transitions: transitions)
    }

    /// The states it went through, in order. States only move forward: a cancel after a
    /// completion does not change the state.
    public internal(set) var transitions: [Transition] {
        get { lists.transitions }
        _modify { yield &uniqueLists.transitions }
    }
    /// Every grant of demand, in order.
    public internal(set) var grants: [DemandGrant] {
        get { lists.grants }
        _modify { yield &uniqueLists.grants }
    }
    /// Every value delivered, in order.
    public internal(set) var deliveries: [Delivery] {
        get { lists.deliveries }
        _modify { yield &uniqueLists.deliveries }
    }
    /// Every completion delivered, in order. More than one is a contract violation.
    public internal(set) var completions: [CompletionDelivery] {
        get { lists.completions }
        _modify { yield &uniqueLists.completions }
    }
    /// The `begin` events of every `cancel()` call on the subscription, in order.
    public internal(set) var cancels: [UInt64] {
        get { lists.cancels }
        _modify { yield &uniqueLists.cancels }
    }
    /// The lifecycles of the hops upstream of this one: hops whose subscriber is this hop's
    /// subscription (an operator's stage playing both roles), the hop that handed this one its
    /// own subscription, and hops subscribed directly inside this hop's subscribe call.
    public internal(set) var upstream: [ID] {
        get { lists.upstream }
        _modify { yield &uniqueLists.upstream }
    }
    /// The lifecycles of the hops downstream of this one.
    public internal(set) var downstream: [ID] {
        get { lists.downstream }
        _modify { yield &uniqueLists.downstream }
    }
    /// The threads its calls ran on, by kernel thread id, in ascending order.
    public internal(set) var threads: [UInt64] {
        get { lists.threads }
        _modify { yield &uniqueLists.threads }
    }
    /// The sequence numbers of all its events, deallocations of its objects included, in order.
    public internal(set) var events: [UInt64] {
        get { lists.events }
        _modify { yield &uniqueLists.events }
    }

    /// ``lists``, copied first when another lifecycle value shares it.
    private var uniqueLists: Lists {
        mutating get {
            if !isKnownUniquelyReferenced(&lists) { lists = lists.copy() }
            return lists
        }
    }

    /// The hop this lifecycle runs on.
    public var hop: Hop {
        Hop(publisher: publisher, subscription: subscription, subscriber: subscriber)
    }

    /// The state after the last transition.
    public var state: State { transitions.last?.state ?? .awaitingSubscription }

    /// The state just before event `seq`.
    public func state(before seq: UInt64) -> State {
        transitions.last { $0.seq < seq }?.state ?? .awaitingSubscription
    }

    /// The first completion or cancel, the event that ended the subscription, if any.
    public var end: UInt64? {
        switch (completions.first?.seq, cancels.first) {
        case let (completion?, cancel?): return min(completion, cancel)
        case let (completion, cancel): return completion ?? cancel
        }
    }

    /// All demand granted before event `seq`.
    public func demand(before seq: UInt64) -> TraceDemand {
        grants.filter { $0.seq < seq }.reduce(TraceDemand.none) { $0 + $1.demand }
    }

    /// All demand granted.
    public var totalDemand: TraceDemand {
        grants.reduce(TraceDemand.none) { $0 + $1.demand }
    }

    /// How many values were delivered before event `seq`.
    public func valueCount(before seq: UInt64) -> Int {
        deliveries.count { $0.begin < seq }
    }

    /// Demand granted and not yet used by a delivered value, just before event `seq`.
    public func outstandingDemand(before seq: UInt64) -> TraceDemand {
        switch demand(before: seq) {
        case .unlimited: return .unlimited
        case .max(let granted): return .max(granted - valueCount(before: seq))
        }
    }

    /// Demand granted and not yet used at the end of the log.
    public var outstandingDemand: TraceDemand {
        outstandingDemand(before: .max)
    }

    public static func == (lhs: Lifecycle, rhs: Lifecycle) -> Bool {
        lhs.id == rhs.id && lhs.subscriber == rhs.subscriber && lhs.publisher == rhs.publisher
            && lhs.subscription == rhs.subscription && lhs.subscribeCall == rhs.subscribeCall
            && lhs.subscriptionCall == rhs.subscriptionCall && lhs.subscriberRelaysDownstream == rhs.subscriberRelaysDownstream
            && (lhs.lists === rhs.lists || lhs.lists.hasSameElements(as: rhs.lists))
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(subscriber)
        hasher.combine(publisher)
        hasher.combine(subscription)
        hasher.combine(subscribeCall)
        hasher.combine(subscriptionCall)
        hasher.combine(subscriberRelaysDownstream)
        lists.hash(into: &hasher)
    }
}

extension Lifecycle {
    /// The lists of one lifecycle, shared by its copies until one of them changes.
    private final class Lists: @unchecked Sendable {
        // Written only through a lifecycle that holds the only reference (`uniqueLists`), so
        // no access can overlap another: not checked at run time, at every event.
        @exclusivity(unchecked) var transitions: [Transition]
        @exclusivity(unchecked) var grants: [DemandGrant] = []
        @exclusivity(unchecked) var deliveries: [Delivery] = []
        @exclusivity(unchecked) var completions: [CompletionDelivery] = []
        @exclusivity(unchecked) var cancels: [UInt64] = []
        @exclusivity(unchecked) var upstream: [ID] = []
        @exclusivity(unchecked) var downstream: [ID] = []
        @exclusivity(unchecked) var threads: [UInt64] = []
        @exclusivity(unchecked) var events: [UInt64] = []

        init(transitions: [Transition]) {
            self.transitions = transitions
        }

        func copy() -> Lists {
            let copy = Lists(transitions: transitions)
            (copy.grants, copy.deliveries, copy.completions, copy.cancels) = (grants, deliveries, completions, cancels)
            (copy.upstream, copy.downstream, copy.threads, copy.events) = (upstream, downstream, threads, events)
            return copy
        }

        func hasSameElements(as other: Lists) -> Bool {
            transitions == other.transitions && grants == other.grants && deliveries == other.deliveries
                && completions == other.completions && cancels == other.cancels && upstream == other.upstream
                && downstream == other.downstream && threads == other.threads && events == other.events
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(transitions)
            hasher.combine(grants)
            hasher.combine(deliveries)
            hasher.combine(completions)
            hasher.combine(cancels)
            hasher.combine(upstream)
            hasher.combine(downstream)
            hasher.combine(threads)
            hasher.combine(events)
        }
    }
}
