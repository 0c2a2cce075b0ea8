import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A hand-written publisher for the analytics upload, written the way many apps write one:
/// the upload holds its subscription weakly, so the subscription lives only as long as the
/// subscriber keeps it.
struct UploadPublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never

    let events: [String]
    let queues: AppQueues

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        // The handshake runs on the network queue, so the upload's answer, which comes on that
        // queue too, can never overlap it.
        queues.network.sync {
            let subscription = UploadSubscription(subscriber: subscriber, events: events, queues: queues)
            subscriber.receive(subscription: subscription)
            subscription.start()
        }
    }
}

/// The upload in flight. It starts once the handshake is over, and answers once, if demand
/// was requested by then.
final class UploadSubscription<Downstream: Subscriber>: Subscription, @unchecked Sendable
where Downstream.Input == Int, Downstream.Failure == Never {
    private var subscriber: Downstream?
    private var demand = Subscribers.Demand.none
    private let events: [String]
    private let queues: AppQueues

    init(subscriber: Downstream, events: [String], queues: AppQueues) {
        self.subscriber = subscriber
        self.events = events
        self.queues = queues
    }

    func request(_ demand: Subscribers.Demand) {
        self.demand += demand
    }

    /// Sends the events; the answer comes on the network queue.
    func start() {
        queues.run(on: queues.network, after: .milliseconds(5)) { [weak self] in
            guard let self, self.demand > 0, let subscriber = self.subscriber else { return }
            _ = subscriber.receive(self.events.count)
            subscriber.receive(completion: .finished)
            self.subscriber = nil
        }
    }

    func cancel() {
        subscriber = nil
    }
}
