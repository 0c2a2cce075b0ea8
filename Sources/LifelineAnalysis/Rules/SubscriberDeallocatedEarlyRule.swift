/// Finds subscribers that died while their subscription was still live.
///
/// A subscriber's death proves the finding when, before the deallocation event, it had
/// received a subscription and had demand outstanding, and nothing had completed or cancelled
/// that subscription. A completion or cancel anywhere before the deallocation event clears it,
/// even when a death found by a liveness check might have come first: the rule only reports
/// what the order of events proves.
///
/// When the log has ownership snapshots, the message adds what held the subscriber in the last
/// snapshot before it died, which shows the owner that was missing: typically nothing in the
/// graph held it, or only the subscription that was about to let it go.
public struct SubscriberDeallocatedEarlyRule: DiagnosisRule {
    public let code = "subscriber-deallocated-early"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        var reported = Set<Lifecycle.ID>()
        return lifecycles.lifecycles.compactMap { lifecycle in
            guard let subscription = lifecycle.subscription, let received = lifecycle.subscriptionCall,
                  let death = lifecycles.deallocations[lifecycle.subscriber], received < death.seq,
                  (lifecycle.end ?? .max) > death.seq,
                  lifecycle.outstandingDemand(before: death.seq) != .none,
                  !lifecycles.lifecycles(ofSubscriber: lifecycle.subscriber).contains(where: { reported.contains($0.id) })
            else { return nil }
            if case .max(let count) = lifecycle.outstandingDemand(before: death.seq), count < 0 { return nil }
            reported.insert(lifecycle.id)
            let subscriber = lifecycles.name(lifecycle.subscriber)
            let grants = lifecycle.grants.filter { $0.seq < death.seq }
            let valueCount = lifecycle.valueCount(before: death.seq)
            return Diagnosis(
                code: code, severity: .error,
                objects: [lifecycle.subscriber, subscription] + [lifecycle.publisher].compactMap { $0 },
                evidence: ([lifecycle.subscriptionCall!] + grants.map(\.seq) + [death.seq]).sorted(),
                message: "\(subscriber) was deallocated while its subscription \(lifecycles.name(subscription)) was still live: "
                    + "it had asked for \(lifecycle.demand(before: death.seq).valuesPhrase) and received \(valueCount), "
                    + "and nothing had completed or cancelled the subscription."
                    + (lifecycles.retainSentence(for: lifecycle.subscriber, before: death.seq) ?? ""),
                fix: "Keep \(subscriber) alive for as long as it is subscribed: store it, or the AnyCancellable that wraps "
                    + "it, in an owner that outlives the work, and cancel the subscription before letting it go.",
                hop: lifecycle.hop
            )
        }
    }
}
