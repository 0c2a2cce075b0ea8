import OpenCombineShim

/// A hand-written subscriber that asks for one value but never keeps the subscription it is
/// given: whatever the publisher does not hold itself dies after the handshake. The subscriber
/// is kept by its owner, so it outlives its subscription.
final class ForgetfulSubscriber: Subscriber {
    typealias Input = Int
    typealias Failure = Never

    func receive(subscription: any Subscription) {
        subscription.request(.max(1))
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        .none
    }

    func receive(completion: Subscribers.Completion<Never>) {}
}
