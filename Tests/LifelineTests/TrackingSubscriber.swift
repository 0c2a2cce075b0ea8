import OpenCombineShim

/// The oracle for handshake tests, written independently of the recorder in the style of
/// OpenCombine's TrackingSubscriber: it writes down every call it gets and every call it
/// makes, in the words the tests compare.
final class TrackingSubscriber: Subscriber, Cancellable {
    typealias Input = Int
    typealias Failure = Never

    private(set) var history: [String] = []
    private var subscription: Subscription?
    private let initialDemand: Subscribers.Demand
    private let returnedDemand: (Int) -> Subscribers.Demand

    init(initialDemand: Subscribers.Demand, returnedDemand: @escaping (Int) -> Subscribers.Demand = { _ in .none }) {
        self.initialDemand = initialDemand
        self.returnedDemand = returnedDemand
    }

    func receive(subscription: Subscription) {
        history.append("receive(subscription:)")
        self.subscription = subscription
        history.append("request(\(initialDemand))")
        subscription.request(initialDemand)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        history.append("receive(\(input))")
        let demand = returnedDemand(input)
        history.append("returned \(demand)")
        return demand
    }

    func receive(completion: Subscribers.Completion<Never>) {
        history.append("receive(completion: finished)")
    }

    func request(_ demand: Subscribers.Demand) {
        history.append("request(\(demand))")
        subscription?.request(demand)
    }

    func cancel() {
        history.append("cancel()")
        subscription?.cancel()
        subscription = nil
    }
}
