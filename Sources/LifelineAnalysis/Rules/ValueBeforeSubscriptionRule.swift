/// Finds values delivered to a subscriber before it received a subscription.
///
/// Only a subscriber whose subscribe call the log shows is checked: a recording that started
/// while a pipeline was already running sees its values but not its handshake, and that
/// proves nothing.
public struct ValueBeforeSubscriptionRule: DiagnosisRule {
    public let code = "value-before-subscription"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        lifecycles.lifecycles.compactMap { lifecycle in
            guard lifecycle.subscribeCall != nil, let value = lifecycle.deliveries.first(where: {
                lifecycle.state(before: $0.begin) == .awaitingSubscription
            }) else { return nil }
            let source = lifecycle.publisher.map { " from \(lifecycles.name($0))" } ?? ""
            return Diagnosis(
                code: code, severity: .error,
                objects: [lifecycle.subscriber] + [lifecycle.publisher].compactMap { $0 },
                evidence: [lifecycle.subscribeCall].compactMap { $0 } + [value.begin],
                message: "\(lifecycles.name(lifecycle.subscriber)) received a value\(source) before it had received "
                    + "any subscription.",
                fix: "Hand the subscriber its subscription with receive(subscription:) first, and send values only "
                    + "after it has requested them.",
                hop: lifecycle.hop
            )
        }
    }
}
