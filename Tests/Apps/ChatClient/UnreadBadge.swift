#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The app icon's badge: a hand-written subscriber that takes incoming messages from every
/// conversation two at a time, asking for more as it handles them.
///
/// Correct: it keeps its subscription, and cancels it when the app closes.
final class UnreadBadge: Subscriber {
    typealias Input = Message
    typealias Failure = Never

    private var subscription: Subscription?
    private(set) var count = 0

    func receive(subscription: Subscription) {
        self.subscription = subscription
        subscription.request(.max(2))
    }

    func receive(_ input: Message) -> Subscribers.Demand {
        count += 1
        return .max(1)
    }

    func receive(completion: Subscribers.Completion<Never>) {
        subscription = nil
    }

    /// Stops counting.
    func cancel() {
        subscription?.cancel()
        subscription = nil
    }
}
