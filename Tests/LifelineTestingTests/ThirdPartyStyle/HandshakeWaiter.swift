import Dispatch
import OpenCombineShim

/// A subscriber that, inside `receive(subscription:)`, asks for values and then waits until one
/// has arrived on another thread: it holds open the window in which OpenCombine's `Future`
/// delivers a result while the handshake that handed its subscription over still runs (the
/// race the chat client's contact search meets by chance), so that the race happens in every
/// run.
final class HandshakeWaiter: Subscriber, @unchecked Sendable {
    typealias Input = Int
    typealias Failure = Never

    private let arrived = DispatchSemaphore(value: 0)
    private let fulfil: () -> Void
    private(set) var subscription: Subscription?
    /// Whether a value arrived while `receive(subscription:)` still ran.
    private(set) var overtaken = false

    /// - Parameter fulfil: Resolves the publisher's promise on another queue.
    init(fulfil: @escaping () -> Void) {
        self.fulfil = fulfil
    }

    func receive(subscription: Subscription) {
        self.subscription = subscription
        subscription.request(.unlimited)
        fulfil()
        overtaken = arrived.wait(timeout: .now() + .seconds(5)) == .success
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        arrived.signal()
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {}
}

/// A `Future`'s promise, kept to be fulfilled from another queue.
final class KeptPromise: @unchecked Sendable {
    var promise: Future<Int, Never>.Promise?
}
