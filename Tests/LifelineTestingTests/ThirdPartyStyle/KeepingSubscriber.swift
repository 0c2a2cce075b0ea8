import Foundation
import OpenCombineShim

/// A hand-written subscriber the way test helpers write them: it keeps its subscription until
/// it is cancelled (not when a completion arrives), asks for everything, and refuses a second
/// subscription by cancelling it.
final class KeepingSubscriber: Subscriber, Cancellable {
    typealias Input = Int
    typealias Failure = Never

    private let lock = NSLock()
    private var subscription: Subscription?
    private(set) var received: [Int] = []

    func receive(subscription: Subscription) {
        lock.lock()
        guard self.subscription == nil else {
            lock.unlock()
            subscription.cancel()
            return
        }
        self.subscription = subscription
        lock.unlock()
        subscription.request(.unlimited)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        lock.lock()
        received.append(input)
        lock.unlock()
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {}

    func cancel() {
        lock.lock()
        let subscription = self.subscription
        self.subscription = nil
        lock.unlock()
        subscription?.cancel()
    }
}
