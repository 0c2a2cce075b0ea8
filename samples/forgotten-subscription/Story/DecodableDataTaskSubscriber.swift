#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The seed's first subscriber: it asks for everything but does not keep the subscription it is
/// given, so nothing keeps that subscription alive once the handshake is over.
final class DecodableDataTaskSubscriber<Input: Decodable>: Subscriber {
    typealias Failure = any Error

    private let console: SampleConsole

    init(console: SampleConsole) {
        self.console = console
    }

    func receive(subscription: any Subscription) {
        console.print("Received subscription")
        subscription.request(.unlimited)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        console.print("Received value: \(input)")
        return .none
    }

    func receive(completion: Subscribers.Completion<any Error>) {
        console.print("Received completion \(completion)")
    }

    deinit {
        console.print("deinit subscriber")
    }
}
