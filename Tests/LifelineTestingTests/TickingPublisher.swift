import Dispatch
import OpenCombineShim
import Synchronization

/// A hand-written publisher driven by a timer on `queue`, whose subscription's `cancel()`
/// forgets to stop the timer and to release the subscriber: the timer keeps firing and
/// delivering values after the cancel returned. (It stops by itself three ticks after the
/// cancel, so that a test can wait for it.)
struct TickingPublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never

    let queue: DispatchQueue
    /// The time between ticks.
    let interval: DispatchTimeInterval
    /// Signalled when the timer fired its last tick.
    let stopped = DispatchSemaphore(value: 0)

    func receive<Downstream: Subscriber>(subscriber: Downstream) where Downstream.Input == Int, Downstream.Failure == Never {
        subscriber.receive(subscription: Ticker(subscriber, queue: queue, interval: interval, stopped: stopped))
    }

    /// The running timer.
    final class Ticker<Downstream: Subscriber>: Subscription, @unchecked Sendable
    where Downstream.Input == Int, Downstream.Failure == Never {
        /// How many ticks the timer fires after the cancel before it stops by itself.
        static var ticksAfterCancel: Int { 3 }

        private let downstream: Downstream
        private let timer: DispatchSourceTimer
        private let interval: DispatchTimeInterval
        private let stopped: DispatchSemaphore
        /// The ticks fired so far, and how many had been fired when `cancel()` was called.
        private let ticks = Mutex((fired: 0, atCancel: Int?.none))

        init(_ downstream: Downstream, queue: DispatchQueue, interval: DispatchTimeInterval, stopped: DispatchSemaphore) {
            self.downstream = downstream
            self.interval = interval
            self.stopped = stopped
            timer = DispatchSource.makeTimerSource(queue: queue)
        }

        func request(_ demand: Subscribers.Demand) {
            guard demand > .none else { return }
            timer.setEventHandler { [self] in
                let (count, last) = ticks.withLock { ticks in
                    ticks.fired += 1
                    return (ticks.fired, ticks.atCancel.map { ticks.fired == $0 + Self.ticksAfterCancel } ?? false)
                }
                _ = downstream.receive(count)
                if last {
                    timer.cancel()
                    stopped.signal()
                }
            }
            timer.schedule(deadline: .now(), repeating: interval)
            timer.resume()
        }

        /// The bug: the timer keeps running.
        func cancel() {
            ticks.withLock { $0.atCancel = $0.fired }
        }
    }
}
