import LifelineLog

/// Diagnoses lifecycle problems in a recorded trace.
///
/// ```swift
/// let trace = try TraceReader.read(contentsOf: "app.lifeline.jsonl")
/// let diagnoses = TraceAnalyzer().diagnose(trace)
/// print(TextDiagnosisReport(trace: trace, diagnoses: diagnoses).render())
/// ```
///
/// The same trace always gives the same diagnoses in the same order: by their first evidence
/// event, then by code, then by the objects involved.
public struct TraceAnalyzer: Sendable {
    /// Every rule that needs nothing but the log. `leaked-subscription` inside a scope needs
    /// the scope, so ``LeakedSubscriptionRule`` is added by those who have one. `retain-cycle`
    /// and `leaked-subscription` at stop (``LeakedAtStopRule``) read the log's ownership
    /// snapshots and find nothing in a log without them.
    public static let standardRules: [any DiagnosisRule] = [
        SubscriberDeallocatedEarlyRule(),
        SubscriptionNotRetainedRule(),
        CancelledImmediatelyRule(),
        DemandExceededRule(),
        DemandStalledRule(),
        WaitsOnRule(),
        ValueAfterCompletionRule(),
        ValueAfterCancelRule(),
        CompletionDuringCancelRule(),
        DuplicateCompletionRule(),
        DuplicateSubscriptionRule(),
        GrowingSubscriptionsRule(),
        ValueBeforeSubscriptionRule(),
        ZeroDemandRequestRule(),
        ConcurrentDeliveryRule(),
        RetainCycleRule(),
        LeakedAtStopRule(),
    ]

    /// The rules this analyzer runs.
    public let rules: [any DiagnosisRule]

    /// Creates an analyzer that runs `rules`.
    ///
    /// - Parameter rules: The checks to run; ``standardRules`` by default.
    public init(rules: [any DiagnosisRule] = TraceAnalyzer.standardRules) {
        self.rules = rules
    }

    /// Every finding in `trace`, in a stable order.
    public func diagnose(_ trace: Trace) -> [Diagnosis] {
        diagnose(TraceLifecycles(trace))
    }

    /// Every finding in already rebuilt lifecycles, in a stable order, each with its
    /// ``Diagnosis/fingerprint``.
    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        rules.flatMap { $0.diagnose(lifecycles) }.map { diagnosis in
            var fingerprinted = diagnosis
            fingerprinted.fingerprint = DiagnosisFingerprint.of(diagnosis, in: lifecycles)
            return fingerprinted
        }.sorted(by: Self.precedes)
    }

    /// The order findings are given in: by first evidence event, then code, then the objects
    /// involved, then the evidence.
    public static func precedes(_ lhs: Diagnosis, _ rhs: Diagnosis) -> Bool {
        if lhs.evidence.first != rhs.evidence.first { return (lhs.evidence.first ?? .max) < (rhs.evidence.first ?? .max) }
        if lhs.code != rhs.code { return lhs.code < rhs.code }
        if lhs.objects != rhs.objects { return lhs.objects.lexicographicallyPrecedes(rhs.objects) }
        return lhs.evidence.lexicographicallyPrecedes(rhs.evidence)
    }
}
