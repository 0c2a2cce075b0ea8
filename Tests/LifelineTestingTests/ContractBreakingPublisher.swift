import Dispatch
import OpenCombineShim

/// A hand-written publisher that breaks the Combine contract on purpose, in one chosen way,
/// so that each diagnosis can be triggered by a real recording.
///
/// Kept to its contract (``Breach/none``), its subscription sends the value 1 and `.finished`
/// once it is asked for at least one value.
struct ContractBreakingPublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never

    /// How the publisher breaks the contract.
    enum Breach: Sendable {
        /// It keeps the contract.
        case none
        /// It sends three values whatever the demand.
        case sendsBeyondDemand
        /// It sends a value after `.finished`.
        case sendsAfterCompletion
        /// It sends `.finished` twice.
        case completesTwice
        /// It hands the subscriber a second subscription.
        case subscribesTwice
        /// It sends a value before handing the subscriber its subscription.
        case sendsBeforeSubscription
        /// It sends two values at once from two threads.
        case sendsFromTwoThreadsAtOnce
    }

    let breach: Breach

    func receive<Downstream: Subscriber>(subscriber: Downstream) where Downstream.Input == Int, Downstream.Failure == Never {
        switch breach {
        case .sendsBeforeSubscription:
            _ = subscriber.receive(0)
        case .subscribesTwice:
            subscriber.receive(subscription: BreachingSubscription(subscriber, breach: .none))
        default:
            break
        }
        subscriber.receive(subscription: BreachingSubscription(subscriber, breach: breach))
    }
}

/// The subscription ``ContractBreakingPublisher`` hands out.
final class BreachingSubscription<Downstream: Subscriber>: Subscription
where Downstream.Input == Int, Downstream.Failure == Never {
    private var downstream: Downstream?
    private let breach: ContractBreakingPublisher.Breach

    init(_ downstream: Downstream, breach: ContractBreakingPublisher.Breach) {
        self.downstream = downstream
        self.breach = breach
    }

    func request(_ demand: Subscribers.Demand) {
        guard demand > .none, let downstream else { return }
        self.downstream = nil
        switch breach {
        case .none, .subscribesTwice, .sendsBeforeSubscription:
            _ = downstream.receive(1)
            downstream.receive(completion: .finished)
        case .sendsBeyondDemand:
            for value in 1...3 { _ = downstream.receive(value) }
            downstream.receive(completion: .finished)
        case .sendsAfterCompletion:
            _ = downstream.receive(1)
            downstream.receive(completion: .finished)
            _ = downstream.receive(2)
        case .completesTwice:
            downstream.receive(completion: .finished)
            downstream.receive(completion: .finished)
        case .sendsFromTwoThreadsAtOnce:
            // Deliberately unsynchronized: that is the breach. The subscriber makes the two
            // deliveries overlap (see RendezvousSubscriber).
            nonisolated(unsafe) let target = AnySubscriber(downstream)
            let deliveries = DispatchGroup()
            for value in 1...2 {
                DispatchQueue.global().async(group: deliveries) { _ = target.receive(value) }
            }
            deliveries.notify(queue: .global()) { target.receive(completion: .finished) }
        }
    }

    func cancel() {
        downstream = nil
    }
}
