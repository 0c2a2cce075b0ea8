import Dispatch
import Foundation
import OpenCombineShim

/// Everything observable the test pipeline did, in order.
final class Journal: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func write(_ line: String) {
        lock.withLock { lines.append(line) }
    }

    var entries: [String] { lock.withLock { lines } }
}

/// A minimal version of the forgotten-subscription story: a publisher whose subscription
/// delivers one value later on a queue, once the test opens the gate.
struct LaterPublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never

    let queue: DispatchQueue
    let group: DispatchGroup
    let gate: DispatchSemaphore

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: LaterSubscription(subscriber: subscriber, queue: queue, group: group, gate: gate))
    }
}

final class LaterSubscription<S: Subscriber>: Subscription, @unchecked Sendable where S.Input == Int, S.Failure == Never {
    private var subscriber: S?
    private let queue: DispatchQueue
    private let group: DispatchGroup
    private let gate: DispatchSemaphore

    init(subscriber: S, queue: DispatchQueue, group: DispatchGroup, gate: DispatchSemaphore) {
        self.subscriber = subscriber
        self.queue = queue
        self.group = group
        self.gate = gate
    }

    func request(_ demand: Subscribers.Demand) {
        group.enter()
        queue.async { [weak self, group, gate] in
            defer { group.leave() }
            gate.wait()
            guard let self else { return }
            _ = self.subscriber?.receive(42)
            self.subscriber?.receive(completion: .finished)
            self.subscriber = nil
        }
    }

    func cancel() {
        subscriber = nil
    }
}

/// A subscriber that keeps its subscription, or forgets it.
final class ForgetfulSubscriber: Subscriber {
    typealias Input = Int
    typealias Failure = Never

    private let journal: Journal
    private let keepsSubscription: Bool
    private var subscription: Subscription?

    init(journal: Journal, keepsSubscription: Bool) {
        self.journal = journal
        self.keepsSubscription = keepsSubscription
    }

    deinit { journal.write("deinit subscriber") }

    func receive(subscription: Subscription) {
        journal.write("received subscription")
        if keepsSubscription { self.subscription = subscription }
        subscription.request(.unlimited)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        journal.write("received value \(input)")
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        journal.write("received completion")
        subscription = nil
    }
}
