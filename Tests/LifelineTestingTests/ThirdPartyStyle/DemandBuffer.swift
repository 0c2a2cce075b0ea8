import Foundation
import OpenCombineShim

/// Values waiting for demand, and the subscriber they go to: the helper object that
/// third-party operators keep their state in. It reaches its subscriber through an
/// `AnySubscriber`, whose box holds it in closures, so a running subscription made this way
/// is a loop: subscriber → subscription → buffer → `AnySubscriber` box → subscriber.
final class DemandBuffer<Downstream: Subscriber> {
    private let lock = NSLock()
    private var buffered: [Downstream.Input] = []
    private var demand = Subscribers.Demand.none
    private var completion: Subscribers.Completion<Downstream.Failure>?
    private let subscriber: AnySubscriber<Downstream.Input, Downstream.Failure>

    init(subscriber: Downstream) {
        self.subscriber = AnySubscriber(subscriber)
    }

    /// Adds a value and sends what demand allows.
    func buffer(_ value: Downstream.Input) {
        lock.lock()
        buffered.append(value)
        lock.unlock()
        flush()
    }

    /// Adds demand and sends what it allows.
    func demand(_ more: Subscribers.Demand) {
        lock.lock()
        demand += more
        lock.unlock()
        flush()
    }

    /// Sends the completion once the buffer is empty.
    func complete(_ completion: Subscribers.Completion<Downstream.Failure>) {
        lock.lock()
        self.completion = completion
        lock.unlock()
        flush()
    }

    private func flush() {
        while true {
            lock.lock()
            guard demand > 0, !buffered.isEmpty else {
                let finished = buffered.isEmpty ? completion : nil
                completion = buffered.isEmpty ? nil : completion
                lock.unlock()
                if let finished { subscriber.receive(completion: finished) }
                return
            }
            demand -= 1
            let value = buffered.removeFirst()
            lock.unlock()
            demand += subscriber.receive(value)
        }
    }
}
