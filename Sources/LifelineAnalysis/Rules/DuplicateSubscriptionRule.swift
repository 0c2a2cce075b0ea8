/// Finds subscribers handed a second subscription while the first was still live.
///
/// A subscriber subscribed again after its earlier subscription completed or was cancelled
/// (as `retry` and `catch` do) is not reported.
public struct DuplicateSubscriptionRule: DiagnosisRule {
    public let code = "duplicate-subscription"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        lifecycles.lifecycles.compactMap { lifecycle in
            guard let subscription = lifecycle.subscription, let received = lifecycle.subscriptionCall,
                  let earlier = lifecycles.overlappedLifecycle(for: lifecycle),
                  let earlierSubscription = earlier.subscription, let earlierCall = earlier.subscriptionCall
            else { return nil }
            let source = lifecycle.publisher.map { " from \(lifecycles.name($0))" } ?? ""
            return Diagnosis(
                code: code, severity: .error,
                objects: [lifecycle.subscriber, subscription, earlierSubscription]
                    + [lifecycle.publisher].compactMap { $0 },
                evidence: [earlierCall, received],
                message: "\(lifecycles.name(lifecycle.subscriber)) received a second subscription, "
                    + "\(lifecycles.name(subscription))\(source), while its subscription "
                    + "\(lifecycles.name(earlierSubscription)) was still live.",
                fix: "Subscribe each subscriber once: create a new subscriber for every subscribe call, or combine the "
                    + "publishers with an operator (zip, flatMap, append) before subscribing.",
                hop: lifecycle.hop
            )
        }
    }
}
