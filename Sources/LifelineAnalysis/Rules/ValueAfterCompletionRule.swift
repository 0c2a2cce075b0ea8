/// Finds values delivered to a subscriber after it received its completion.
///
/// A subscriber subscribed again after completing (as `retry` and `catch` do) starts a new
/// lifecycle, so its new values are not reported.
public struct ValueAfterCompletionRule: DiagnosisRule {
    public let code = "value-after-completion"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        lifecycles.lifecycles.compactMap { lifecycle in
            guard let completion = lifecycle.completions.first,
                  let value = lifecycle.deliveries.first(where: { $0.begin > completion.seq })
            else { return nil }
            let subscriber = lifecycles.name(lifecycle.subscriber)
            let source = lifecycle.subscription.map { " from \(lifecycles.name($0))" } ?? ""
            return Diagnosis(
                code: code, severity: .error,
                objects: [lifecycle.subscriber] + [lifecycle.subscription, lifecycle.publisher].compactMap { $0 },
                evidence: [completion.seq, value.begin],
                message: "\(subscriber) received a value\(source) after it had received its completion "
                    + "(\(completion.completion.swiftSpelling)).",
                fix: "Send nothing after a completion: have the subscription mark itself finished when it sends the "
                    + "completion, release the subscriber, and drop any later values.",
                hop: lifecycle.hop
            )
        }
    }
}
