#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A hand-written subscriber that reports how many analytics events the server stored.
///
/// The bug: it requests demand but never keeps the subscription it was given, and the upload
/// holds its subscription only weakly, so the subscription dies at once and the answer never
/// comes. The app keeps the subscriber itself for its whole run.
final class AnalyticsSubscriber: Subscriber {
    typealias Input = Int
    typealias Failure = Never

    private(set) var storedCount: Int?

    func receive(subscription: Subscription) {
        subscription.request(.max(1))
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        storedCount = input
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {}
}
