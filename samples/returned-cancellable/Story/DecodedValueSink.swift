#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The subscriber behind ``DecodedDataTaskPublisher/sinkDecoded(receiveValue:receiveCompletion:)``:
/// it runs closures for the value and the completion, and keeps its subscription until the
/// completion arrives or it is cancelled, as Combine's `Subscribers.Sink` does.
final class DecodedValueSink<Input>: Subscriber, Cancellable {
    typealias Failure = any Error

    private let receiveValue: (Input) -> Void
    private let receiveCompletion: (Subscribers.Completion<any Error>) -> Void
    private var subscription: (any Subscription)?

    init(
        receiveValue: @escaping (Input) -> Void,
        receiveCompletion: @escaping (Subscribers.Completion<any Error>) -> Void
    ) {
        self.receiveValue = receiveValue
        self.receiveCompletion = receiveCompletion
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.unlimited)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        receiveValue(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<any Error>) {
        subscription = nil
        receiveCompletion(completion)
    }

    func cancel() {
        subscription?.cancel()
        subscription = nil
    }
}

extension DecodedDataTaskPublisher {
    /// The seed's second fix (its `ssink`): subscribes a closure-based subscriber and returns
    /// the handle that controls the request's lifetime, for the caller to keep.
    ///
    /// The returned `AnyCancellable` cancels the request when it is released, so the caller
    /// decides how long the request may live.
    func sinkDecoded(
        receiveValue: @escaping (Output) -> Void,
        receiveCompletion: @escaping (Subscribers.Completion<any Error>) -> Void
    ) -> AnyCancellable {
        let sink = DecodedValueSink<Output>(
            receiveValue: receiveValue, receiveCompletion: receiveCompletion)
        subscribe(sink)
        return AnyCancellable(sink)
    }
}
