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
        subscriber.receive(subscription: UploadSubscription(subscriber: subscriber, events: events, queues: queues))
    }
}

/// The upload in flight. It answers once, when demand has been requested.
final class UploadSubscription<Downstream: Subscriber>: Subscription, @unchecked Sendable
where Downstream.Input == Int, Downstream.Failure == Never {
    private var subscriber: Downstream?
    private let events: [String]
    private let queues: AppQueues

    init(subscriber: Downstream, events: [String], queues: AppQueues) {
        self.subscriber = subscriber
        self.events = events
        self.queues = queues
    }

    func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        queues.run(on: queues.network, after: .milliseconds(5)) { [weak self] in
            guard let self, let subscriber = self.subscriber else { return }
            _ = subscriber.receive(self.events.count)
            subscriber.receive(completion: .finished)
            self.subscriber = nil
        }
    }

    func cancel() {
        subscriber = nil
    }
}
