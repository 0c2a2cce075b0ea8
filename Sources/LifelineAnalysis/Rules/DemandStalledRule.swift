import LifelineLog

/// Finds pipelines whose subscriber stopped asking for values: when recording stopped, the
/// subscription was still open and neither completed nor cancelled, both ends were alive,
/// and every value the subscriber had asked for had been delivered.
///
/// Only a cleanly closed log that dropped no events says what was alive at the end, so
/// nothing is reported otherwise. Only the end of a pipeline is checked: an operator's stage
/// with no outstanding demand is waiting for its downstream (as `flatMap(maxPublishers:)`
/// does while a child runs), which is back pressure, not a stall.
public struct DemandStalledRule: DiagnosisRule {
    public let code = "demand-stalled"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        guard lifecycles.endIsKnown else { return [] }
        return lifecycles.lifecycles.compactMap { lifecycle in
            guard let subscription = lifecycle.subscription, let received = lifecycle.subscriptionCall,
                  lifecycle.state == .subscribed, lifecycle.outstandingDemand == .none,
                  lifecycles.isPipelineEnd(lifecycle), lifecycles.isAliveAtStop(lifecycle.subscriber),
                  lifecycles.deallocations[subscription] == nil,
                  lifecycles.overlappedLifecycle(for: lifecycle) == nil
            else { return nil }
            let subscriber = lifecycles.name(lifecycle.subscriber)
            let last = lifecycle.deliveries.last.map { $0.end ?? $0.begin }
            let asked = lifecycle.totalDemand == .none
                ? "\(subscriber) never asked for any values"
                : "\(subscriber) asked for \(lifecycle.totalDemand.valuesPhrase), received all of them, and asked for no more"
            return Diagnosis(
                code: code, severity: .warning,
                objects: [lifecycle.subscriber, subscription] + [lifecycle.publisher].compactMap { $0 },
                evidence: Array(Set([received] + lifecycle.grants.map(\.seq) + [last].compactMap { $0 })).sorted(),
                message: "\(asked): \(lifecycles.name(subscription)) was still open with no outstanding demand "
                    + "when recording stopped, so nothing more could arrive.",
                fix: "Ask for more when \(subscriber) is ready (call request(_:) again, or return .max(n) from "
                    + "receive(_:)), or cancel the subscription once no more values are wanted.",
                hop: lifecycle.hop
            )
        }
    }
}
