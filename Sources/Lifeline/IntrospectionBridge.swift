#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif
import LifelineLog

/// Automatic mode: the one place Lifeline uses Combine's underscored `_Introspection` hook.
///
/// Once enabled, Combine calls this object around every `subscribe(_:)`,
/// `receive(subscription:)`, `receive(_:)`, `receive(completion:)`, `request(_:)` and
/// `cancel()` at every hop, including the hops inside operators. The hook hands over the raw
/// subscriber and subscription objects (not Combine's tap wrappers), so their identity and
/// lifetime are the real ones. Nothing here keeps a reference past the call.
final class IntrospectionBridge: _Introspection, @unchecked Sendable {
    private let session: RecordingSession

    init(session: RecordingSession) {
        self.session = session
    }

    func willReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Failure == Downstream.Failure, Upstream.Output == Downstream.Input {
        if let hop = publisher as? LabelledHopPublisher {
            // A `.lifeline(_:)` hop subscribes its subscriber straight to its upstream, whose
            // subscribe call is the one recorded; here the subscriber gets the hop's label.
            _ = session.identify(
                subscriber, role: .subscriber, key: subscriber.combineIdentifier, label: hop.label,
                sourceLocation: TraceSourceLocation(fileAndLine: hop.sourceLocation)
            )
            return
        }
        _ = session.callSites.subscribeBegins()
        let subscriberID = id(of: subscriber, role: .subscriber)
        session.record(.begin, .subscribe(publisher: beginPublisher(publisher, for: subscriberID), subscriber: subscriberID))
    }

    func didReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Failure == Downstream.Failure, Upstream.Output == Downstream.Input {
        guard !(publisher is LabelledHopPublisher) else { return }
        let subscriberID = id(of: subscriber, role: .subscriber)
        let publisherID = session.publisherIDs.end(for: subscriberID) ?? id(of: publisher, role: .publisher)
        let seq = session.record(.end, .subscribe(publisher: publisherID, subscriber: subscriberID))
        session.callSites.subscribeEnds()
        session.callEnded(at: seq, snapshotReason: .subscribe)
    }

    func willReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: Subscription) {
        session.record(.begin, .receiveSubscription(
            subscriber: id(of: subscriber, role: .subscriber), subscription: id(of: subscription, role: .subscription)
        ))
        session.callSites.handshakeBegins()
    }

    func didReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: Subscription) {
        session.callSites.handshakeEnds()
        let seq = session.record(.end, .receiveSubscription(
            subscriber: id(of: subscriber, role: .subscriber), subscription: id(of: subscription, role: .subscription)
        ))
        session.sweep(after: seq)
    }

    // The hot path. Not inlined into the protocol's witness, which only calls it: Swift marks
    // every call a witness makes not to be inlined, so there the record path's C entry point
    // would stay a call (about 25 instructions an event more, callgrind). A described value
    // takes a function of its own, whose text handling would otherwise make every delivery save
    // more registers and guard its stack.
    func willReceive<Downstream: Subscriber>(subscriber: Downstream, input: Downstream.Input) {
        guard session.recordsDeliveriesDirectly else { return willReceiveGenerally(subscriber: subscriber, input: input) }
        session.recordDeliveryBegin(to: id(of: subscriber, role: .subscriber, joined: true))
    }

    /// ``willReceive(subscriber:input:)`` where the delivery entry points don't record it.
    @inline(never)
    private func willReceiveGenerally<Downstream: Subscriber>(subscriber: Downstream, input: Downstream.Input) {
        guard session.options.valueDescriptionLimit == nil else { return willReceiveDescribed(subscriber: subscriber, input: input) }
        let subscriberID = id(of: subscriber, role: .subscriber, joined: true)
        session.record(.begin, .value(subscriber: subscriberID, returnedDemand: nil, value: nil), delivery: .enters)
    }

    @inline(never)
    private func willReceiveDescribed<Downstream: Subscriber>(subscriber: Downstream, input: Downstream.Input) {
        let subscriberID = id(of: subscriber, role: .subscriber, joined: true)
        let description = session.describe(input)
        session.valueDescriptions.push(description)
        session.record(.begin, .value(subscriber: subscriberID, returnedDemand: nil, value: description), delivery: .enters)
    }

    func didReceive<Downstream: Subscriber>(
        subscriber: Downstream, input: Downstream.Input, resultingDemand: Subscribers.Demand
    ) {
        guard session.recordsDeliveriesDirectly else {
            return didReceiveGenerally(subscriber: subscriber, input: input, resultingDemand: resultingDemand)
        }
        // The subscriber the beginning entered the delivery scope for: one whose id fits a record
        // (1 through UInt32.max) is recorded here, and then the hook's arguments are no longer
        // needed. One call that left the scope and recorded, handing back a scope without
        // subscriber, kept them in registers across the record path, which saved and restored
        // three registers more and spilled four: 34 instructions a value more (callgrind).
        let begun = session.leaveDeliveryScope()
        guard begun &- 1 < UInt64(UInt32.max) else {
            return didReceiveOutsideScope(subscriber: subscriber, begun: begun, resultingDemand: resultingDemand)
        }
        session.recordDeliveryEnd(of: TraceObjectID(begun), returnedDemand: resultingDemand.recordEncoding, leavingScope: false)
    }

    /// ``didReceive(subscriber:input:resultingDemand:)`` where the scope left held no subscriber
    /// whose id fits a record (`begun`, 0 for none).
    @inline(never)
    private func didReceiveOutsideScope<Downstream: Subscriber>(
        subscriber: Downstream, begun: UInt64, resultingDemand: Subscribers.Demand
    ) {
        let subscriberID = begun != 0 ? TraceObjectID(begun) : id(of: subscriber, role: .subscriber, joined: true)
        session.record(.end, .value(subscriber: subscriberID, returnedDemand: TraceDemand(resultingDemand), value: nil))
    }

    /// ``didReceive(subscriber:input:resultingDemand:)`` where the delivery entry points don't
    /// record it.
    @inline(never)
    private func didReceiveGenerally<Downstream: Subscriber>(
        subscriber: Downstream, input: Downstream.Input, resultingDemand: Subscribers.Demand
    ) {
        guard session.options.valueDescriptionLimit == nil else {
            return didReceiveDescribed(subscriber: subscriber, input: input, resultingDemand: resultingDemand)
        }
        let begun = session.callSites.deliveryEnds()
        let subscriberID = begun ?? id(of: subscriber, role: .subscriber, joined: true)
        session.record(.end, .value(subscriber: subscriberID, returnedDemand: TraceDemand(resultingDemand), value: nil))
    }

    @inline(never)
    private func didReceiveDescribed<Downstream: Subscriber>(
        subscriber: Downstream, input: Downstream.Input, resultingDemand: Subscribers.Demand
    ) {
        // The subscriber the beginning was recorded for, from the thread's delivery scope.
        let begun = session.callSites.deliveryEnds()
        let subscriberID = begun ?? id(of: subscriber, role: .subscriber, joined: true)
        // Described once, at the beginning of the delivery, when that was recorded.
        let description = session.valueDescriptions.pop() ?? session.describe(input)
        session.record(.end, .value(subscriber: subscriberID, returnedDemand: TraceDemand(resultingDemand), value: description))
    }

    func willReceive<Downstream: Subscriber>(subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>) {
        let subscriberID = id(of: subscriber, role: .subscriber, joined: true)
        session.record(.begin, .completion(subscriber: subscriberID, completion: TraceEvent.Completion(completion)), delivery: .enters)
    }

    func didReceive<Downstream: Subscriber>(subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>) {
        let begun = session.callSites.deliveryEnds()
        let seq = session.record(.end, .completion(
            subscriber: begun ?? id(of: subscriber, role: .subscriber, joined: true), completion: TraceEvent.Completion(completion)
        ))
        session.callEnded(at: seq, snapshotReason: .completion)
    }

    func willRequest(subscription: Subscription, _ demand: Subscribers.Demand) {
        let site = session.callSites.requestBegins()
        session.record(
            .begin, .request(subscription: id(of: subscription, role: .subscription, joined: true), demand: TraceDemand(demand)), callSite: site
        )
    }

    func didRequest(subscription: Subscription, _ demand: Subscribers.Demand) {
        session.callSites.requestEnds()
        session.record(.end, .request(subscription: id(of: subscription, role: .subscription, joined: true), demand: TraceDemand(demand)))
    }

    func willCancel(subscription: Subscription) {
        let site = session.callSites.cancelBegins()
        session.record(.begin, .cancel(subscription: id(of: subscription, role: .subscription, joined: true)), callSite: site)
    }

    func didCancel(subscription: Subscription) {
        session.callSites.cancelEnds()
        let seq = session.record(.end, .cancel(subscription: id(of: subscription, role: .subscription, joined: true)))
        session.callEnded(at: seq, snapshotReason: .cancel)
    }

    /// A struct publisher has no identity of its own: it gets a fresh id for each subscribe,
    /// remembered until the matching end event.
    private func beginPublisher<Upstream: Publisher>(_ publisher: Upstream, for subscriberID: TraceObjectID) -> TraceObjectID {
        guard !(Upstream.self is AnyClass) else { return id(of: publisher, role: .publisher) }
        let publisherID = session.identify(publisher, role: .publisher)
        session.publisherIDs.begin(publisherID, for: subscriberID)
        return publisherID
    }

    private func id<Upstream: Publisher>(of publisher: Upstream, role: TraceObjectRole) -> TraceObjectID {
        session.identify(publisher, role: role)
    }

    /// A subscription's id. `joined` says the call is one a subscription only gets once it was
    /// handed over (a request or a cancel): seen first there, it joined mid-stream.
    private func id(of subscription: Subscription, role: TraceObjectRole, joined: Bool = false) -> TraceObjectID {
        func opened<Concrete: Subscription>(_ subscription: Concrete) -> TraceObjectID {
            if let id = cachedID(of: subscription) { return id }
            return session.identify(
                subscription, role: role, key: subscription.combineIdentifier, joinedMidStream: joined,
                metadata: Self.metadata(of: Concrete.self)
            )
        }
        return opened(subscription)
    }

    /// A subscriber's id. An `AnySubscriber` is the subscriber it wraps: Combine hands the
    /// hook one when a publisher passes its subscriber on to another publisher unchanged
    /// (`eraseToAnyPublisher()`, a `.lifeline(_:)` hop).
    /// `joined` says the call is one a subscriber only gets once subscribed (a value or a
    /// completion): seen first there, it joined mid-stream.
    ///
    /// The cache is read in the caller; the rest, which makes room for a copy of the value, is
    /// not inlined.
    @inline(__always)
    private func id<Downstream: Subscriber>(of subscriber: Downstream, role: TraceObjectRole, joined: Bool = false) -> TraceObjectID {
        if let id = cachedID(of: subscriber) { return id }
        return uncachedID(of: subscriber, role: role, joined: joined)
    }

    @inline(never)
    private func uncachedID<Downstream: Subscriber>(of subscriber: Downstream, role: TraceObjectRole, joined: Bool) -> TraceObjectID {
        // A type-erased subscriber is never cached: what it stands for can change.
        let isTypeErased = subscriber is TypeErasedSubscriber
        if isTypeErased, let id = session.registry.wrappedID(for: subscriber.combineIdentifier) {
            return id
        }
        return session.identify(
            subscriber, role: role, key: subscriber.combineIdentifier, joinedMidStream: joined,
            metadata: isTypeErased ? nil : Self.metadata(of: Downstream.self)
        )
    }

    /// The id of a class instance or a value the registry already knows, from the lock-free
    /// identity cache: no boxing, no cast, no lock. `nil` for anything else (an object met for
    /// the first time, one whose address a dead object had, a type-erased subscriber), which
    /// takes the slow path.
    @inline(__always)
    private func cachedID<Object: CustomCombineIdentifierConvertible>(of object: Object) -> TraceObjectID? {
        let metadata = Self.metadata(of: Object.self)
        // A class reference is one pointer; only class metadata is ever cached for objects, so
        // a value type of the same size never matches and its bytes are never followed.
        if MemoryLayout<Object>.size == MemoryLayout<UnsafeRawPointer>.size {
            // The value's one word, read in place: no closure, no copy of the value.
            let address = unsafeBitCast(object, to: UnsafeRawPointer?.self)
            if let id = session.registry.cachedID(of: address, metadata: metadata) { return id }
        }
        // The identifier first: the registry read after the witness call is not kept alive
        // (retained and released) across it.
        let identifier = object.combineIdentifier
        return session.registry.cachedID(ofValue: identifier, metadata: metadata)
    }

    /// The type metadata of `type`: the identity cache's proof that a value is an instance of
    /// a known class.
    @inline(__always)
    private static func metadata(of type: Any.Type) -> UnsafeRawPointer {
        unsafeBitCast(type, to: UnsafeRawPointer.self)
    }
}

/// A subscriber that stands for another one and takes over its combine identifier.
protocol TypeErasedSubscriber {}

extension AnySubscriber: TypeErasedSubscriber {}
