import OpenCombineShim

/// A hand-written feed whose subscription sends each value it is asked for and never finishes
/// by itself, so that only a cancel ends it.
///
/// How it lets go of its subscriber when cancelled is chosen: ``Teardown/silent`` releases it
/// without a word, as the contract asks; ``Teardown/finishesOnCancel`` shares one teardown
/// between finishing and cancelling, so its `cancel()` sends `.finished` to the subscriber that
/// is cancelling it, from inside the cancel.
struct TeardownFeed: Publisher {
    typealias Output = Int
    typealias Failure = Never

    /// What the subscription's `cancel()` does.
    enum Teardown: Sendable {
        /// It releases the subscriber and sends nothing.
        case silent
        /// It sends `.finished` to the subscriber, then releases it: the breach.
        case finishesOnCancel
    }

    let teardown: Teardown

    func receive<Downstream: Subscriber>(subscriber: Downstream) where Downstream.Input == Int, Downstream.Failure == Never {
        subscriber.receive(subscription: Subscription(subscriber, teardown: teardown))
    }

    final class Subscription<Downstream: Subscriber>: OpenCombineShim.Subscription
    where Downstream.Input == Int, Downstream.Failure == Never {
        private var downstream: Downstream?
        private let teardown: Teardown
        private var next = 1

        init(_ downstream: Downstream, teardown: Teardown) {
            self.downstream = downstream
            self.teardown = teardown
        }

        /// Sends as many values as asked for, three at most for unlimited demand.
        func request(_ demand: Subscribers.Demand) {
            var remaining = demand.max ?? 3
            while remaining > 0, let downstream {
                remaining -= 1
                next += 1
                remaining += downstream.receive(next - 1).max ?? 0
            }
        }

        func cancel() {
            switch teardown {
            case .silent:
                downstream = nil
            case .finishesOnCancel:
                finish()
            }
        }

        /// The teardown the breach shares between the end of the feed and a cancel.
        private func finish() {
            guard let downstream else { return }
            self.downstream = nil
            downstream.receive(completion: .finished)
        }
    }
}
