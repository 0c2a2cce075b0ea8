/// One recorded step of a Combine handshake.
///
/// Calls are recorded twice, when they begin and when they return, so that nesting (which
/// call happened inside which) can be rebuilt. Deallocations are instants.
public struct TraceEvent: Hashable, Sendable {
    /// The global sequence number, assigned when the event was recorded. Events are ordered by
    /// it and never reordered afterwards.
    public let seq: UInt64
    /// Nanoseconds since the trace started, on the clock the header names.
    public let time: UInt64
    /// The kernel thread id of the recording thread.
    public let thread: UInt64
    /// The dispatch queue the thread was running, or `nil`.
    public let queue: UInt32?
    /// Whether the call began, returned, or the event is an instant.
    public let phase: Phase
    /// What happened.
    public let kind: Kind
    /// The call site the recorder captured for this call, when it captured one: on the
    /// `begin` of a top-level cancel, and of a request a subscriber made while it was handed
    /// its subscription. The trace's ``Trace/callSites`` resolve it.
    public let callSite: UInt64?

    /// Creates an event.
    public init(
        seq: UInt64, time: UInt64, thread: UInt64, queue: UInt32?, phase: Phase, kind: Kind, callSite: UInt64? = nil
    ) {
        self.callSite = callSite
        self.seq = seq
        self.time = time
        self.thread = thread
        self.queue = queue
        self.phase = phase
        self.kind = kind
    }

    /// The moment of a call an event marks.
    public enum Phase: String, Hashable, Sendable {
        /// The call is about to run.
        case begin
        /// The call returned.
        case end
        /// A point in time with no duration.
        case instant
    }

    /// How a subscription completed.
    public enum Completion: Hashable, Sendable {
        /// `.finished`.
        case finished
        /// `.failure`, with the error's description.
        case failure(String)
    }

    /// How precisely a deallocation is known.
    public enum DeallocationEvidence: Hashable, Sendable {
        /// Seen as it happened (a proxy Lifeline owns ran its deinit).
        case exact
        /// Found dead by a weak reference check. The object was last seen alive at
        /// `aliveAtSeq`, so it died between that event and this one.
        case observed(aliveAtSeq: UInt64)
    }

    /// The handshake step.
    public enum Kind: Hashable, Sendable {
        /// `publisher.subscribe(subscriber)`.
        case subscribe(publisher: TraceObjectID, subscriber: TraceObjectID)
        /// `subscriber.receive(subscription:)`.
        case receiveSubscription(subscriber: TraceObjectID, subscription: TraceObjectID)
        /// `subscription.request(demand)`.
        case request(subscription: TraceObjectID, demand: TraceDemand)
        /// `subscriber.receive(value)`. `returnedDemand` is set on the `end` event;
        /// `value` only when value descriptions were turned on.
        case value(subscriber: TraceObjectID, returnedDemand: TraceDemand?, value: String?)
        /// `subscriber.receive(completion:)`.
        case completion(subscriber: TraceObjectID, completion: Completion)
        /// `subscription.cancel()`.
        case cancel(subscription: TraceObjectID)
        /// The object was deallocated.
        case deallocation(object: TraceObjectID, evidence: DeallocationEvidence)
        /// A named point the user asked for.
        case mark(label: String)

        /// The name used for this kind in the log's `kind` field.
        public var name: String {
            switch self {
            case .subscribe: return "subscribe"
            case .receiveSubscription: return "receive_subscription"
            case .request: return "request"
            case .value: return "value"
            case .completion: return "completion"
            case .cancel: return "cancel"
            case .deallocation: return "deallocation"
            case .mark: return "mark"
            }
        }

        /// Every object the event refers to.
        public var objects: [TraceObjectID] {
            var objects: [TraceObjectID] = []
            forEachObject { objects.append($0) }
            return objects
        }

        /// Calls `body` with every object the event refers to, in ``objects``' order, without
        /// building an array: for the loops that visit every event of a log.
        @inlinable
        public func forEachObject(_ body: (TraceObjectID) throws -> Void) rethrows {
            switch self {
            case .subscribe(let first, let second), .receiveSubscription(let first, let second):
                try body(first)
                try body(second)
            case .request(let object, _), .cancel(let object), .value(let object, _, _), .completion(let object, _),
                 .deallocation(let object, _):
                try body(object)
            case .mark:
                break
            }
        }
    }
}
