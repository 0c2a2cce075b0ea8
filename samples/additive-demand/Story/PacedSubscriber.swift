#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A custom subscriber that applies back pressure: it asks for a few values at a time, can be
/// asked to request more later, and can return extra demand from `receive(_:)`.
///
/// It keeps its own count of the demand it has outstanding, to print it: every request and
/// every returned demand adds to it, and every value received takes one away.
final class PacedSubscriber: Subscriber {
    typealias Input = Int
    typealias Failure = Never

    private let console: SampleConsole
    private let initialDemand: Subscribers.Demand
    private let extraDemand: (Int) -> Subscribers.Demand
    private var subscription: (any Subscription)?
    private var outstanding = Subscribers.Demand.none
    private var received = 0

    /// Creates a subscriber.
    ///
    /// - Parameters:
    ///   - console: Where it prints what it requests and receives.
    ///   - initialDemand: What it requests as soon as it is subscribed.
    ///   - extraDemand: What `receive(_:)` returns for each value.
    init(
        console: SampleConsole, initialDemand: Subscribers.Demand,
        extraDemand: @escaping (Int) -> Subscribers.Demand
    ) {
        self.console = console
        self.initialDemand = initialDemand
        self.extraDemand = extraDemand
    }

    /// Asks the subscription for `demand` more values, on top of what is outstanding.
    func request(_ demand: Subscribers.Demand) {
        outstanding += demand
        console.print("request(\(demand)): \(outstanding) outstanding")
        subscription?.request(demand)
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        request(initialDemand)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        received += 1
        outstanding -= 1
        let extra = extraDemand(input)
        if extra == .none {
            console.print("Received \(input): \(outstanding) outstanding")
        } else {
            outstanding += extra
            console.print("Received \(input), returning \(extra): \(outstanding) outstanding")
        }
        return extra
    }

    func receive(completion: Subscribers.Completion<Never>) {
        subscription = nil
        console.print("Received completion \(completion) after \(received) values")
    }
}
