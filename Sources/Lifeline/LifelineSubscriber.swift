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
    /// Read on every value: exclusive access is not checked at run time (it is only ever
    /// written in `deinit`, when no call can be running).
    @exclusivity(unchecked) private var downstream: Downstream?
    private weak var downstreamObject: AnyObject?
    private let id: TraceObjectID
    private let hop: LifelineHop

    init(downstream: Downstream, id: TraceObjectID, hop: LifelineHop) {
        self.downstream = downstream
        if Downstream.self is AnyClass { downstreamObject = downstream as AnyObject }
        self.id = id
        self.hop = hop
    }

    deinit {
        let tracked = downstreamObject != nil
        downstream = nil
        if tracked && downstreamObject == nil { hop.session.recordExactDeath(of: id) }
    }

    func receive(subscription: Subscription) {
        let proxy = LifelineSubscription(upstream: subscription, hop: hop)
        hop.session.record(.begin, .receiveSubscription(subscriber: id, subscription: proxy.id))
        hop.session.callSites.handshakeBegins()
        downstream?.receive(subscription: proxy)
        hop.session.callSites.handshakeEnds()
        hop.session.sweep(after: hop.session.record(.end, .receiveSubscription(subscriber: id, subscription: proxy.id)))
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let session = hop.session
        // Described once, for both events.
        let description = session.describe(input)
        session.record(.begin, .value(subscriber: id, returnedDemand: nil, value: description))
        session.callSites.deliveryBegins(to: id)
        let demand = downstream?.receive(input) ?? .none
        session.callSites.deliveryEnds()
        session.record(.end, .value(subscriber: id, returnedDemand: TraceDemand(demand), value: description))
        return demand
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let event = TraceEvent.Kind.completion(subscriber: id, completion: TraceEvent.Completion(completion))
        hop.session.record(.begin, event)
        hop.session.callSites.deliveryBegins(to: id)
        downstream?.receive(completion: completion)
        hop.session.callSites.deliveryEnds()
        let seq = hop.session.record(.end, event)
        hop.session.callEnded(at: seq, snapshotReason: .completion)
    }
}
