/// Finds subscribers handed a second subscription: while the first was still live, or
/// without being subscribed again.
///
/// A subscriber subscribed again after its earlier subscription completed or was cancelled
/// (as `retry` and `catch` do) is not reported: that is a new `subscribe(_:)` call. A
/// subscription that arrives with no subscribe call of its own, after the subscriber already
/// received one, is reported even when the first had ended: one subscribe call hands out one
/// subscription. The exception is a subscription that arrives late for a subscribe call a
/// completion already answered (the publisher finished on another thread while handing it
/// out): `value-before-subscription` reports that, the cause.
public struct DuplicateSubscriptionRule: DiagnosisRule {
    public let code = "duplicate-subscription"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        lifecycles.lifecycles.compactMap { lifecycle in
            guard let subscription = lifecycle.subscription, let received = lifecycle.subscriptionCall,
                  !ValueBeforeSubscriptionRule.receivedItsSubscriptionLate(lifecycle)
            else { return nil }
            let overlapped = lifecycles.overlappedLifecycle(for: lifecycle)
            guard let earlier = overlapped ?? unsubscribedPredecessor(of: lifecycle, in: lifecycles),
                  let earlierSubscription = earlier.subscription, let earlierCall = earlier.subscriptionCall
            else { return nil }
            let publisher = lifecycle.publisher ?? earlier.publisher
            let source = publisher.map { " from \(lifecycles.name($0))" } ?? ""
            let when = overlapped != nil
                ? "while its subscription \(lifecycles.name(earlierSubscription)) was still live"
                : "without being subscribed again, after \(lifecycles.name(earlierSubscription))"
            return Diagnosis(
                code: code, severity: .error,
                objects: [lifecycle.subscriber, subscription, earlierSubscription] + [publisher].compactMap { $0 },
                evidence: [earlierCall, received],
                message: "\(lifecycles.name(lifecycle.subscriber)) received a second subscription, "
                    + "\(lifecycles.name(subscription))\(source), \(when).",
                fix: "Hand each subscriber exactly one subscription per subscribe call, and subscribe each subscriber "
                    + "once: create a new subscriber for every subscribe call, or combine the publishers with an "
                    + "operator (zip, flatMap, append) before subscribing.",
                hop: lifecycle.hop
            )
        }
    }

    /// The subscriber's earlier lifecycle that had already received a subscription, when
    /// `lifecycle` received its own without any subscribe call of its own.
    private func unsubscribedPredecessor(of lifecycle: Lifecycle, in lifecycles: TraceLifecycles) -> Lifecycle? {
        guard lifecycle.subscribeCall == nil else { return nil }
        return lifecycles.lifecycleReceived(before: lifecycle)
    }
}
