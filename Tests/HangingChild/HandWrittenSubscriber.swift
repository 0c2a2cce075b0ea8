#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A hand-written subscriber of numbers that keeps its subscription, asks for `initialDemand`
/// when it is handed it, and after each value either asks for more (demand is additive) or
/// cancels, as it was told.
final class HandWrittenSubscriber: Subscriber, Cancellable {
    typealias Input = Int
    typealias Failure = Never

    /// What the subscriber does once a value has arrived.
    enum AfterValue {
        /// Returns this demand from `receive(_:)`.
        case ask(Subscribers.Demand)
        /// Cancels its subscription: it wanted one value.
        case cancel
    }

    private let initialDemand: Subscribers.Demand
    private let afterValue: AfterValue
    private let onEnd: () -> Void
    private var subscription: (any Subscription)?

    /// A subscriber that calls `onEnd` when it cancels after a value or receives its completion.
    init(initialDemand: Subscribers.Demand, afterValue: AfterValue, onEnd: @escaping () -> Void) {
        self.initialDemand = initialDemand
        self.afterValue = afterValue
        self.onEnd = onEnd
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        if initialDemand > 0 { subscription.request(initialDemand) }
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        switch afterValue {
        case .ask(let demand):
            return demand
        case .cancel:
            cancel()
            onEnd()
            return .none
        }
    }

    func receive(completion: Subscribers.Completion<Never>) {
        subscription = nil
        onEnd()
    }

    func cancel() {
        subscription?.cancel()
        subscription = nil
    }
}
