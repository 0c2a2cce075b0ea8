#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A hand-written subscriber that asks for one value, and for one more with each value it
/// receives: demand is additive, so the values keep coming one at a time. It keeps its
/// subscription until it completes or is cancelled.
final class PacedReader: Subscriber, Cancellable {
    typealias Input = Int
    typealias Failure = Never

    private let onFinished: () -> Void
    private var subscription: (any Subscription)?

    init(onFinished: @escaping () -> Void) {
        self.onFinished = onFinished
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.max(1))
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        .max(1)
    }

    func receive(completion: Subscribers.Completion<Never>) {
        subscription = nil
        onFinished()
    }

    func cancel() {
        subscription?.cancel()
        subscription = nil
    }
}
