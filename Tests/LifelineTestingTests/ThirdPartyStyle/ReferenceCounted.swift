import OpenCombineShim

/// An operator that wraps its upstream's subscription to count its subscribers, written with
/// the bug third-party versions have had: the wrapper lets go of its relay in `cancel()`
/// only, never when the upstream completes, so a subscriber that keeps its subscription keeps
/// the whole pipeline after it finished.
struct ReferenceCounted<Upstream: Publisher>: Publisher {
    typealias Output = Upstream.Output
    typealias Failure = Upstream.Failure

    let upstream: Upstream

    func receive<Downstream: Subscriber>(subscriber: Downstream) where Downstream.Input == Output, Downstream.Failure == Failure {
        upstream.subscribe(ReferenceCountedRelay(downstream: subscriber))
    }
}

/// The subscriber ``ReferenceCounted`` subscribes upstream.
final class ReferenceCountedRelay<Downstream: Subscriber>: Subscriber {
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private let downstream: Downstream

    init(downstream: Downstream) {
        self.downstream = downstream
    }

    func receive(subscription: Subscription) {
        downstream.receive(subscription: ReferenceCountedSubscription(wrapping: subscription, relay: self))
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
    }
}

/// The subscription ``ReferenceCounted`` hands its subscriber.
final class ReferenceCountedSubscription<Relay: AnyObject>: Subscription {
    private let wrapped: Subscription
    private var relay: Relay?

    init(wrapping wrapped: Subscription, relay: Relay) {
        self.wrapped = wrapped
        self.relay = relay
    }

    func request(_ demand: Subscribers.Demand) {
        wrapped.request(demand)
    }

    func cancel() {
        wrapped.cancel()
        relay = nil
    }
}

extension Publisher {
    /// Counts its subscribers.
    func referenceCounted() -> ReferenceCounted<Self> {
        ReferenceCounted(upstream: self)
    }
}
