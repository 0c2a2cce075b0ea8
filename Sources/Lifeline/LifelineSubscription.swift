#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif
import LifelineLog

/// The proxy subscription of a `.lifeline(_:)` hop. The downstream holds it in place of the
/// upstream subscription, and it holds the upstream subscription.
///
/// Its deallocation is exact: it dies exactly when the downstream lets go of its
/// subscription, which is the moment a forgotten subscription is dropped.
final class LifelineSubscription: Subscription {
    let id: TraceObjectID
    /// Read on every request: exclusive access is not checked at run time (it is only ever
    /// written in `deinit`, when no call can be running).
    @exclusivity(unchecked) private var upstream: Subscription?
    private let hop: LifelineHop

    init(upstream: Subscription, hop: LifelineHop) {
        self.upstream = upstream
        self.hop = hop
        id = hop.session.registry.freshID()
        let name = TypeName.of(type(of: upstream))
        hop.session.declare(TraceObject(
            id: id, role: .subscription, typeName: "Lifeline.LifelineSubscription<\(name.full)>",
            shortTypeName: "LifelineSubscription", label: hop.label, sourceLocation: hop.sourceLocation,
            callSite: hop.session.callSites.currentSubscribeSite, lifetimeTracked: true
        ))
    }

    deinit {
        hop.session.recordProxyDeath(of: id)
        upstream = nil
    }

    func request(_ demand: Subscribers.Demand) {
        let site = hop.session.callSites.requestBegins()
        hop.session.record(.begin, .request(subscription: id, demand: TraceDemand(demand)), callSite: site)
        upstream?.request(demand)
        hop.session.callSites.requestEnds()
        hop.session.record(.end, .request(subscription: id, demand: TraceDemand(demand)))
    }

    func cancel() {
        let site = hop.session.callSites.cancelBegins()
        hop.session.record(.begin, .cancel(subscription: id), callSite: site)
        upstream?.cancel()
        hop.session.callSites.cancelEnds()
        let seq = hop.session.record(.end, .cancel(subscription: id))
        hop.session.callEnded(at: seq, snapshotReason: .cancel)
    }
}
