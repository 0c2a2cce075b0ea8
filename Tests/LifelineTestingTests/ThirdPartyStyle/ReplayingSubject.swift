import Foundation
import OpenCombineShim

/// A subject that replays its last values to each new subscriber, written with the bug
/// third-party versions have had: a subscription's `cancel()` stops deliveries but never
/// removes it from the subject's list, so the subject keeps every subscription it ever made,
/// and each keeps its subscriber.
final class ReplayingSubject<Output>: Subject {
    typealias Failure = Never

    private let lock = NSLock()
    private var values: [Output] = []
    private var subscriptions: [ReplaySubscription<Output>] = []
    private let bufferSize: Int

    init(bufferSize: Int) {
        self.bufferSize = bufferSize
    }

    func send(_ value: Output) {
        lock.lock()
        values = Array((values + [value]).suffix(bufferSize))
        let subscriptions = self.subscriptions
        lock.unlock()
        subscriptions.forEach { $0.deliver(value) }
    }

    func send(completion: Subscribers.Completion<Never>) {
        lock.lock()
        let subscriptions = self.subscriptions
        lock.unlock()
        subscriptions.forEach { $0.finish(completion) }
    }

    func send(subscription: Subscription) {
        subscription.request(.unlimited)
    }

    func receive<Downstream: Subscriber>(subscriber: Downstream) where Downstream.Input == Output, Downstream.Failure == Never {
        let subscription = ReplaySubscription<Output>(AnySubscriber(subscriber))
        lock.lock()
        subscriptions.append(subscription)
        let replay = values
        lock.unlock()
        subscriber.receive(subscription: subscription)
        replay.forEach(subscription.deliver)
    }
}

/// A subscription of ``ReplayingSubject``: it sends while not cancelled, ignoring demand.
final class ReplaySubscription<Output>: Subscription {
    private let lock = NSLock()
    private let subscriber: AnySubscriber<Output, Never>
    private var isCancelled = false

    init(_ subscriber: AnySubscriber<Output, Never>) {
        self.subscriber = subscriber
    }

    func deliver(_ value: Output) {
        lock.lock()
        let cancelled = isCancelled
        lock.unlock()
        if !cancelled { _ = subscriber.receive(value) }
    }

    func finish(_ completion: Subscribers.Completion<Never>) {
        lock.lock()
        let cancelled = isCancelled
        isCancelled = true
        lock.unlock()
        if !cancelled { subscriber.receive(completion: completion) }
    }

    func request(_ demand: Subscribers.Demand) {}

    func cancel() {
        lock.lock()
        isCancelled = true
        lock.unlock()
    }
}
