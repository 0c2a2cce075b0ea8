import Dispatch
import OpenCombineShim

/// A hand-written publisher whose subscription answers later on `queue`, from work that holds
/// the subscription only weakly: it lives as long as its subscriber keeps it, as many apps'
/// request publishers do.
struct WeaklyHeldUpload: Publisher {
    typealias Output = Int
    typealias Failure = Never

    let queue: DispatchQueue

    func receive<Downstream: Subscriber>(subscriber: Downstream) where Downstream.Input == Int, Downstream.Failure == Never {
        subscriber.receive(subscription: UploadSubscription(subscriber, queue: queue))
    }

    /// The upload in flight: it answers with 3 once demand has been requested.
    final class UploadSubscription<Downstream: Subscriber>: Subscription, @unchecked Sendable
    where Downstream.Input == Int, Downstream.Failure == Never {
        private var downstream: Downstream?
        private let queue: DispatchQueue

        init(_ downstream: Downstream, queue: DispatchQueue) {
            self.downstream = downstream
            self.queue = queue
        }

        func request(_ demand: Subscribers.Demand) {
            guard demand > .none else { return }
            queue.async { [weak self] in
                guard let self, let downstream = self.downstream else { return }
                self.downstream = nil
                _ = downstream.receive(3)
                downstream.receive(completion: .finished)
            }
        }

        func cancel() {
            downstream = nil
        }
    }
}
