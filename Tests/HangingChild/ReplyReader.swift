#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A hand-written subscriber that reads one reply: it keeps its subscription, asks for one
/// value only if told to (the fix), and cancels once the reply has come.
final class ReplyReader: Subscriber, Cancellable {
    typealias Input = String
    typealias Failure = Never

    private let requestsOnSubscription: Bool
    private let onReply: (String) -> Void
    private var subscription: (any Subscription)?

    init(requestsOnSubscription: Bool, onReply: @escaping (String) -> Void) {
        self.requestsOnSubscription = requestsOnSubscription
        self.onReply = onReply
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        if requestsOnSubscription { subscription.request(.max(1)) }
    }

    func receive(_ input: String) -> Subscribers.Demand {
        onReply(input)
        cancel()
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        subscription = nil
    }

    func cancel() {
        subscription?.cancel()
        subscription = nil
    }
}
