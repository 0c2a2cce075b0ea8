import Dispatch
import OpenCombineShim
import Synchronization

/// A subscriber that keeps to the contract: it asks for a fixed demand when subscribed, keeps
/// its subscription until the completion, and writes down what it receives.
final class RecordingSubscriber: Subscriber {
    typealias Input = Int
    typealias Failure = Never

    let outcome = PipelineOutcome()
    private let initialDemands: [Subscribers.Demand]
    private var subscription: (any Subscription)?

    /// - Parameter initialDemands: What to request, in order, as soon as it is subscribed.
    init(requesting initialDemands: Subscribers.Demand...) {
        self.initialDemands = initialDemands
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        initialDemands.forEach(subscription.request)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        outcome.note(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        outcome.note(completion)
        subscription = nil
    }

    /// Cancels its subscription and lets go of it.
    func cancel() {
        subscription?.cancel()
        subscription = nil
    }
}

/// A subscriber whose first `receive(_:)` waits until a second one has begun on another
/// thread: it makes a publisher's unsynchronized sends overlap every time, so that the
/// recording shows two threads inside it at once.
final class RendezvousSubscriber: Subscriber {
    typealias Input = Int
    typealias Failure = Never

    /// Signalled when the completion arrives.
    let finished = DispatchSemaphore(value: 0)
    private let firstInside = DispatchSemaphore(value: 0)
    private let secondInside = DispatchSemaphore(value: 0)
    private let arrivals = Atomic<Int>(0)
    private var subscription: (any Subscription)?

    func receive(subscription: any Subscription) {
        self.subscription = subscription
    }

    /// Asks for every value. Called after the subscribe call has returned, so that the two
    /// deliveries overlap each other and not the receive(subscription:) call.
    func start() {
        subscription?.request(.unlimited)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        if arrivals.add(1, ordering: .relaxed).newValue == 1 {
            firstInside.signal()
            _ = secondInside.wait(timeout: .now() + .seconds(10))
        } else {
            _ = firstInside.wait(timeout: .now() + .seconds(10))
            secondInside.signal()
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        subscription = nil
        finished.signal()
    }
}
