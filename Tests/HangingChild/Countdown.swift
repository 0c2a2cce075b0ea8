#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A hand-written publisher of the numbers from `start` down to 1, then `.finished`, sent as
/// its subscriber asks for them. Its subscription either adds the demand each value's
/// `receive(_:)` returns to what it owes (the fix), or drops it: a subscriber that asks for
/// one value at a time then gets only the first.
struct Countdown: Publisher {
    typealias Output = Int
    typealias Failure = Never

    let start: Int
    let addsReturnedDemand: Bool

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Inner(subscriber: subscriber, next: start, addsReturnedDemand: addsReturnedDemand))
    }

    /// Sends the countdown as demand allows.
    final class Inner<Downstream: Subscriber>: Subscription where Downstream.Input == Int {
        private var subscriber: Downstream?
        private var next: Int
        private var demand = Subscribers.Demand.none
        private let addsReturnedDemand: Bool

        init(subscriber: Downstream, next: Int, addsReturnedDemand: Bool) {
            self.subscriber = subscriber
            self.next = next
            self.addsReturnedDemand = addsReturnedDemand
        }

        func request(_ demand: Subscribers.Demand) {
            self.demand += demand
            while self.demand > 0, next > 0, let subscriber {
                self.demand -= 1
                let more = subscriber.receive(next)
                if addsReturnedDemand { self.demand += more }
                next -= 1
            }
            if next == 0 {
                subscriber?.receive(completion: .finished)
                subscriber = nil
            }
        }

        func cancel() {
            subscriber = nil
        }
    }
}
