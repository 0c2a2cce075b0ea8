import Foundation
import OpenCombineShim

/// `withLatestFrom`, written as third-party libraries write it. With `dropsRelay`, it has the
/// bug their versions have had: when its upstream completes, or its subscriber cancels, it lets
/// go of the relay that listens to `other` without cancelling the relay's subscription, so the
/// relay stays subscribed to `other` for as long as `other` lives.
struct WithLatestFrom<Upstream: Publisher, Other: Publisher>: Publisher
where Upstream.Failure == Never, Other.Failure == Never {
    typealias Output = (Upstream.Output, Other.Output)
    typealias Failure = Never

    let upstream: Upstream
    let other: Other
    let dropsRelay: Bool

    func receive<Downstream: Subscriber>(subscriber: Downstream) where Downstream.Input == Output, Downstream.Failure == Never {
        let subscription = WithLatestFromSubscription<Upstream, Other, Downstream>(downstream: subscriber, dropsRelay: dropsRelay)
        other.subscribe(subscription.latest)
        subscriber.receive(subscription: subscription)
        upstream.subscribe(subscription)
    }
}

/// Keeps the latest value of `other`.
final class LatestRelay<Value>: Subscriber {
    typealias Input = Value
    typealias Failure = Never

    private let lock = NSLock()
    private var subscription: Subscription?
    private var value: Value?

    var latest: Value? {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func receive(subscription: Subscription) {
        lock.lock()
        self.subscription = subscription
        lock.unlock()
        subscription.request(.unlimited)
    }

    func receive(_ input: Value) -> Subscribers.Demand {
        lock.lock()
        value = input
        lock.unlock()
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        lock.lock()
        subscription = nil
        lock.unlock()
    }

    /// Cancels the subscription to `other`.
    func cancel() {
        lock.lock()
        let subscription = self.subscription
        self.subscription = nil
        lock.unlock()
        subscription?.cancel()
    }
}

/// The subscription ``WithLatestFrom`` hands out, and the subscriber of its upstream.
final class WithLatestFromSubscription<Upstream: Publisher, Other: Publisher, Downstream: Subscriber>: Subscription, Subscriber
where Upstream.Failure == Never, Other.Failure == Never, Downstream.Input == (Upstream.Output, Other.Output), Downstream.Failure == Never {
    typealias Input = Upstream.Output
    typealias Failure = Never

    private let lock = NSLock()
    private var downstream: Downstream?
    private var upstream: Subscription?
    private var pending = Subscribers.Demand.none
    private let dropsRelay: Bool
    private(set) var latest = LatestRelay<Other.Output>()

    init(downstream: Downstream, dropsRelay: Bool) {
        self.downstream = downstream
        self.dropsRelay = dropsRelay
    }

    func receive(subscription: Subscription) {
        lock.lock()
        upstream = subscription
        let pending = self.pending
        self.pending = .none
        lock.unlock()
        if pending > 0 { subscription.request(pending) }
    }

    func request(_ demand: Subscribers.Demand) {
        lock.lock()
        let upstream = self.upstream
        if upstream == nil { pending += demand }
        lock.unlock()
        upstream?.request(demand)
    }

    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
        guard let other = latest.latest else { return .max(1) }
        lock.lock()
        let downstream = self.downstream
        lock.unlock()
        return downstream?.receive((input, other)) ?? .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        lock.lock()
        let downstream = self.downstream
        self.downstream = nil
        upstream = nil
        let relay = letGoOfRelay()
        lock.unlock()
        relay?.cancel()
        downstream?.receive(completion: completion)
    }

    func cancel() {
        lock.lock()
        let upstream = self.upstream
        self.upstream = nil
        downstream = nil
        let relay = letGoOfRelay()
        lock.unlock()
        relay?.cancel()
        upstream?.cancel()
    }

    /// Replaces the relay, and returns it to be cancelled unless the operator has the bug.
    private func letGoOfRelay() -> LatestRelay<Other.Output>? {
        let relay = latest
        latest = LatestRelay()
        return dropsRelay ? nil : relay
    }
}

extension Publisher where Failure == Never {
    /// Pairs each value with the latest value of `other`.
    func withLatestFrom<Other: Publisher>(_ other: Other, dropsRelay: Bool = false) -> WithLatestFrom<Self, Other>
    where Other.Failure == Never {
        WithLatestFrom(upstream: self, other: other, dropsRelay: dropsRelay)
    }
}

/// Pairs one value through a `withLatestFrom` that drops its relay, then cancels: the relay
/// and the other publisher's subscription are left in a loop nothing can end.
func leaveADroppedRelay() {
    let other = PassthroughSubject<Int, Never>()
    let main = PassthroughSubject<Int, Never>()
    let cancellable = main.withLatestFrom(other, dropsRelay: true).sink { _ in }
    other.send(1)
    main.send(2)
    cancellable.cancel()
}
