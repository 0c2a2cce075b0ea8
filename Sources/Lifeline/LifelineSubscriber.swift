#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif
import LifelineLog

/// The proxy subscriber of a `.lifeline(_:)` hop. The upstream subscription holds it, and it
/// holds the downstream subscriber, just as the upstream subscription held the downstream
/// before.
///
/// When the upstream releases it, it lets go of the downstream first and checks whether that
/// was the downstream's last owner: if so, the downstream's deallocation is exact.
final class LifelineSubscriber<Downstream: Subscriber>: Subscriber {
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    let combineIdentifier = CombineIdentifier()
    /// The downstream, in a box of its own that the proxy releases by hand: a call borrows the
    /// box's constant in place, where reading a stored variable would copy the downstream on
    /// every value, retaining objects that have side tables (the registry's weak references)
    /// through the runtime's slow path.
    private let box: Unmanaged<DownstreamBox>
    private let id: TraceObjectID
    private let hop: LifelineHop
    /// Whether the session's delivery entry points record this proxy's deliveries (see
    /// `RecordingSession.recordsDeliveriesDirectly`) with its id, which fits a record: decided
    /// once, where testing the description limit, the log's format, call sites and the id's size
    /// on every value cost 23 instructions a value more at each hop (callgrind, operator mode).
    private let recordsDeliveriesDirectly: Bool

    private final class DownstreamBox {
        let downstream: Downstream
        init(_ downstream: Downstream) { self.downstream = downstream }
    }

    init(downstream: Downstream, id: TraceObjectID, hop: LifelineHop) {
        box = .passRetained(DownstreamBox(downstream))
        self.id = id
        self.hop = hop
        recordsDeliveriesDirectly = hop.session.recordsDeliveriesDirectly && id.rawValue <= UInt32.max
    }

    deinit {
        weak var downstreamObject: AnyObject?
        if Downstream.self is AnyClass { downstreamObject = box.takeUnretainedValue().downstream as AnyObject }
        let tracked = downstreamObject != nil
        box.release()
        if tracked && downstreamObject == nil { hop.session.recordExactDeath(of: id) }
    }

    /// Calls `body` with the downstream, borrowed.
    @inline(__always)
    private func withDownstream<Result>(_ body: (borrowing Downstream) -> Result) -> Result {
        box._withUnsafeGuaranteedRef { body($0.downstream) }
    }

    func receive(subscription: Subscription) {
        let proxy = LifelineSubscription(upstream: subscription, hop: hop)
        hop.session.record(.begin, .receiveSubscription(subscriber: id, subscription: proxy.id))
        hop.session.callSites.handshakeBegins()
        withDownstream { $0.receive(subscription: proxy) }
        hop.session.callSites.handshakeEnds()
        hop.session.sweep(after: hop.session.record(.end, .receiveSubscription(subscriber: id, subscription: proxy.id)))
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let session = hop.session
        guard recordsDeliveriesDirectly else { return receiveGenerally(input) }
        // The id fits a record (`recordsDeliveriesDirectly`): testing it again cost 4 instructions
        // a value (callgrind, operator mode).
        session.recordDeliveryBegin(toRecordable: UInt32(truncatingIfNeeded: id.rawValue))
        let demand = withDownstream { $0.receive(input) }
        session.recordDeliveryEnd(of: id, returnedDemand: demand.recordEncoding)
        return demand
    }

    /// ``receive(_:)`` where the session's delivery entry points don't record it.
    @inline(never)
    private func receiveGenerally(_ input: Input) -> Subscribers.Demand {
        let session = hop.session
        guard session.options.valueDescriptionLimit == nil else { return receiveDescribing(input) }
        session.record(.begin, .value(subscriber: id, returnedDemand: nil, value: nil), delivery: .enters)
        let demand = withDownstream { $0.receive(input) }
        session.record(.end, .value(subscriber: id, returnedDemand: TraceDemand(demand), value: nil), delivery: .leaves)
        return demand
    }

    /// ``receive(_:)`` when values are described: kept apart, so that a delivery without a
    /// description handles no text.
    @inline(never)
    private func receiveDescribing(_ input: Input) -> Subscribers.Demand {
        let session = hop.session
        // Described once, for both events.
        let description = session.describe(input)
        session.record(.begin, .value(subscriber: id, returnedDemand: nil, value: description), delivery: .enters)
        let demand = withDownstream { $0.receive(input) }
        session.record(.end, .value(subscriber: id, returnedDemand: TraceDemand(demand), value: description), delivery: .leaves)
        return demand
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let event = TraceEvent.Kind.completion(subscriber: id, completion: TraceEvent.Completion(completion))
        hop.session.record(.begin, event, delivery: .enters)
        withDownstream { $0.receive(completion: completion) }
        let seq = hop.session.record(.end, event, delivery: .leaves)
        hop.session.callEnded(at: seq, snapshotReason: .completion)
    }
}
