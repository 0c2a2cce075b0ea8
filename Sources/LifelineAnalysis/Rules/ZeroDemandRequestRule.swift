import LifelineLog

/// Finds `request(_:)` calls that asked for no values (`.none`).
public struct ZeroDemandRequestRule: DiagnosisRule {
    public let code = "zero-demand-request"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        lifecycles.trace.events.compactMap { event in
            guard event.phase == .begin, case .request(let subscription, .max(let count)) = event.kind, count <= 0 else {
                return nil
            }
            let lifecycle = lifecycles.lifecycle(ofEvent: event.seq)
            let caller = lifecycle.map { " by \(lifecycles.name($0.subscriber))" } ?? ""
            return Diagnosis(
                code: code, severity: .error,
                objects: [subscription] + [lifecycle?.subscriber].compactMap { $0 },
                evidence: [event.seq],
                message: "request(\(count == 0 ? ".none" : ".max(\(count))")) was called on \(lifecycles.name(subscription))\(caller): "
                    + "a request must ask for at least one value.",
                fix: "Request at least .max(1), or make no request when no more values are wanted; many subscriptions "
                    + "treat a request for .none as a programming error and trap.",
                hop: lifecycle?.hop
            )
        }
    }
}
