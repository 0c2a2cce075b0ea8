import OpenCombineShim

/// A hand-written publisher that keeps every subscription it hands out, and whose subscriptions
/// let go of their subscriber when the feed goes offline, without a completion: a subscriber
/// nothing else keeps then dies while its subscription is still live and still owes it values.
final class DroppingFeed: Publisher {
    typealias Output = Int
    typealias Failure = Never

    private var subscriptions: [any FeedSubscription] = []

    func receive<Downstream: Subscriber>(subscriber: Downstream) where Downstream.Input == Int, Downstream.Failure == Never {
        let subscription = Subscription(subscriber)
        subscriptions.append(subscription)
        subscriber.receive(subscription: subscription)
    }

    /// The bug: every subscription drops its subscriber, neither completing nor cancelling.
    func goOffline() {
        subscriptions.forEach { $0.dropSubscriber() }
    }

    /// Forgets every subscription, as the feed's owner tears it down.
    func close() {
        subscriptions.removeAll()
    }

    final class Subscription<Downstream: Subscriber>: OpenCombineShim.Subscription, FeedSubscription
    where Downstream.Input == Int, Downstream.Failure == Never {
        private var downstream: Downstream?

        init(_ downstream: Downstream) {
            self.downstream = downstream
        }

        func request(_ demand: Subscribers.Demand) {}

        func cancel() {
            downstream = nil
        }

        func dropSubscriber() {
            downstream = nil
        }
    }
}

/// What ``DroppingFeed`` can do to a subscription whatever its subscriber's type.
protocol FeedSubscription: AnyObject {
    func dropSubscriber()
}
