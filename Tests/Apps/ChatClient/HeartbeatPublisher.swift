import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The connection's heartbeat: a repeating DispatchSource timer on the connection queue,
/// wrapped in a publisher that sends the tick count.
///
/// Correct: each subscription owns its timer, sends only what was asked for, and stops the
/// timer when it is cancelled. A lock serializes ticks with `cancel()`, so no tick reaches the
/// subscriber once `cancel()` has returned.
struct HeartbeatPublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never

    let interval: DispatchTimeInterval
    let queues: ChatQueues

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        let subscription = HeartbeatSubscription(subscriber: subscriber, interval: interval, queues: queues)
        subscriber.receive(subscription: subscription)
        subscription.start()
    }
}

/// One subscriber's heartbeat timer.
final class HeartbeatSubscription<Downstream: Subscriber>: Subscription, @unchecked Sendable
where Downstream.Input == Int, Downstream.Failure == Never {
    private let lock = NSRecursiveLock()
    private var subscriber: Downstream?
    private var demand = Subscribers.Demand.none
    private var ticks = 0
    private let timer: DispatchSourceTimer
    private let interval: DispatchTimeInterval
    private let queues: ChatQueues

    init(subscriber: Downstream, interval: DispatchTimeInterval, queues: ChatQueues) {
        self.subscriber = subscriber
        self.interval = interval
        self.queues = queues
        timer = DispatchSource.makeTimerSource(queue: queues.connection)
    }

    /// Starts the timer, once the subscriber has its subscription.
    func start() {
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.tick() }
        queues.pendingWork.enter()
        timer.setCancelHandler { [queues] in queues.pendingWork.leave() }
        timer.resume()
    }

    func request(_ demand: Subscribers.Demand) {
        lock.lock()
        defer { lock.unlock() }
        self.demand += demand
    }

    func cancel() {
        lock.lock()
        defer { lock.unlock() }
        guard subscriber != nil else { return }
        subscriber = nil
        timer.cancel()
    }

    private func tick() {
        lock.lock()
        defer { lock.unlock() }
        guard let subscriber, demand > 0 else { return }
        ticks += 1
        demand -= 1
        demand += subscriber.receive(ticks)
    }
}
