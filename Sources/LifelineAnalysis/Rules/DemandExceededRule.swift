import LifelineLog

/// Finds subscriptions that delivered more values than their subscriber asked for.
///
/// Demand is cumulative: every `request(_:)` (counted when it begins) and every demand
/// returned from `receive(_:)` (counted when it returns) adds to it, and each value, counted
/// when its delivery begins, uses one. Asking again is allowed and never reported.
public struct DemandExceededRule: DiagnosisRule {
    public let code = "demand-exceeded"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        lifecycles.lifecycles.compactMap { lifecycle in
            // Values sent before the subscription are value-before-subscription's finding.
            let subscribed = lifecycle.deliveries.filter { lifecycle.state(before: $0.begin) != .awaitingSubscription }
            for (index, delivery) in subscribed.enumerated() {
                guard case .max(let granted) = lifecycle.demand(before: delivery.begin), index + 1 > granted else { continue }
                guard let subscription = lifecycle.subscription else { return nil }
                let subscriber = lifecycles.name(lifecycle.subscriber)
                let grants = lifecycle.grants.filter { $0.seq < delivery.begin }
                return Diagnosis(
                    code: code, severity: .error,
                    objects: [subscription, lifecycle.subscriber] + [lifecycle.publisher].compactMap { $0 },
                    evidence: (grants.map(\.seq) + [delivery.begin]).sorted(),
                    message: "\(lifecycles.name(subscription)) delivered value \(index + 1) to \(subscriber), "
                        + (granted == 0 ? "but \(subscriber) had not asked for any values yet."
                            : "but \(subscriber) had asked for only \(TraceDemand.max(granted).valuesPhrase)."),
                    fix: "Make the subscription honour demand: add up every request(_:) and every demand returned from "
                        + "receive(_:), subtract one for each value sent, and send nothing while the outstanding demand is zero.",
                    hop: lifecycle.hop
                )
            }
            return nil
        }
    }
}
