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
            // Grants and deliveries are both in event order: add each grant up once, as the
            // deliveries pass it.
            var demand = TraceDemand.none
            var granted = 0
            for (index, delivery) in subscribed.enumerated() {
                while granted < lifecycle.grants.count, lifecycle.grants[granted].seq < delivery.begin {
                    demand = demand + lifecycle.grants[granted].demand
                    granted += 1
                }
                guard case .max(let allowed) = demand, index + 1 > allowed else { continue }
                guard let subscription = lifecycle.subscription else { return nil }
                let subscriber = lifecycles.name(lifecycle.subscriber)
                let grants = lifecycle.grants[..<granted]
                return Diagnosis(
                    code: code, severity: .error,
                    objects: [subscription, lifecycle.subscriber] + [lifecycle.publisher].compactMap { $0 },
                    evidence: (grants.map(\.seq) + [delivery.begin]).sorted(),
                    message: "\(lifecycles.name(subscription)) delivered value \(index + 1) to \(subscriber), "
                        + (allowed == 0 ? "but \(subscriber) had not asked for any values yet."
                            : "but \(subscriber) had asked for only \(TraceDemand.max(allowed).valuesPhrase)."),
                    fix: "Make the subscription honour demand: add up every request(_:) and every demand returned from "
                        + "receive(_:), subtract one for each value sent, and send nothing while the outstanding demand is zero.",
                    hop: lifecycle.hop
                )
            }
            return nil
        }
    }
}
