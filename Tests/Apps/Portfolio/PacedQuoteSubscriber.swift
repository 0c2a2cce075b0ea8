import AppMutations
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A hand-written subscriber that takes quotes one at a time: it asks for one, and asks for
/// the next only after it has handled the last, by returning `.max(1)`; or, as an export that
/// wants a single quote, asks for one and no more.
///
/// Correct: it keeps its subscription, and cancels it when it is done.
final class PacedQuoteSubscriber: Subscriber {
    typealias Input = Quote
    typealias Failure = Never

    private let wantsMore: Bool
    private let mutation: AppMutation
    private var subscription: Subscription?
    private(set) var received: [Quote] = []

    /// A subscriber that takes every quote one at a time, or (with `wantsMore` false) only one.
    init(wantsMore: Bool, mutation: AppMutation = .none) {
        self.wantsMore = wantsMore
        self.mutation = mutation
    }

    func receive(subscription: Subscription) {
        self.subscription = subscription
        subscription.request(.max(1))
    }

    func receive(_ input: Quote) -> Subscribers.Demand {
        received.append(input)
        guard mutation != .demandStall else {
            return .none // seeded: demand-stall
        }
        return wantsMore ? .max(1) : .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        subscription = nil
    }

    /// Stops taking quotes.
    func cancel() {
        subscription?.cancel()
        subscription = nil
    }
}
