#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The seed's first fix: the subscriber stores the subscription it is given, and cancels and
/// releases it when the request completes.
///
/// Subscriber and subscription now keep each other alive while the request is in flight; the
/// completion breaks that loop on both sides (here through `cancel()`, and in the
/// subscription, which drops its subscriber when its data task ends).
final class SubscriptionStoringSubscriber<Input: Decodable>: Subscriber, Cancellable {
    typealias Failure = any Error

    private let console: SampleConsole
    private var subscription: (any Subscription)?

    init(console: SampleConsole) {
        self.console = console
    }

    func receive(subscription: any Subscription) {
        console.print("Received subscription")
        self.subscription = subscription
        subscription.request(.unlimited)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        console.print("Received value: \(input)")
        return .none
    }

    func receive(completion: Subscribers.Completion<any Error>) {
        console.print("Received completion \(completion)")
        cancel()
    }

    func cancel() {
        subscription?.cancel()
        subscription = nil
    }

    deinit {
        console.print("deinit subscriber")
    }
}
