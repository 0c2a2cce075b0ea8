import LifelineLog

/// Finds subscribers that died while their subscription was still live.
///
/// A subscriber's death proves the finding only when the log shows the work it was waiting for
/// still pending at that moment:
/// - before the deallocation event, it had received a subscription and had demand
///   outstanding, and nothing had completed or cancelled that subscription;
/// - the subscription provably outlived it: a later liveness check saw the subscription
///   alive, or it was alive when recording stopped.
///
/// A subscription that died first (nothing kept it, so the subscriber only lost a
/// subscription that was already gone: `subscription-not-retained`'s finding), or that died
/// in the same check as the subscriber (a pipeline torn down at once, where the log cannot
/// say which went first), proves nothing; neither does a value-type subscription, which has
/// no lifetime. A completion or cancel anywhere before the deallocation event clears it,
/// even when a death found by a liveness check might have come first: the rule only reports
/// what the order of events proves.
///
/// When the log has ownership snapshots, the message adds what held the subscriber in the last
/// snapshot before it died, which shows the owner that was missing: typically nothing in the
/// graph held it.
public struct SubscriberDeallocatedEarlyRule: DiagnosisRule {
    public let code = "subscriber-deallocated-early"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        var reported = Set<TraceObjectID>()
        return lifecycles.lifecycles.compactMap { lifecycle in
            guard let subscription = lifecycle.subscription, let received = lifecycle.subscriptionCall,
                  let death = lifecycles.deallocations[lifecycle.subscriber], received < death.seq,
                  (lifecycle.end ?? .max) > death.seq,
                  lifecycle.outstandingDemand(before: death.seq) != .none,
                  lifecycles.provablyOutlived(subscription, death),
                  !reported.contains(lifecycle.subscriber)
            else { return nil }
            if case .max(let count) = lifecycle.outstandingDemand(before: death.seq), count < 0 { return nil }
            reported.insert(lifecycle.subscriber)
            let subscriber = lifecycles.name(lifecycle.subscriber)
            let grants = lifecycle.grants.filter { $0.seq < death.seq }
            let valueCount = lifecycle.valueCount(before: death.seq)
            let survival = lifecycles.deallocations[subscription]
            let outlived = survival.map { "it died only later (@\($0.seq))" } ?? "it was still alive when recording stopped"
            return Diagnosis(
                code: code, severity: .error,
                objects: [lifecycle.subscriber, subscription] + [lifecycle.publisher].compactMap { $0 },
                evidence: ([received] + grants.map(\.seq) + [death.seq] + [survival?.seq].compactMap { $0 }).sorted(),
                message: "\(subscriber) was deallocated while its subscription \(lifecycles.name(subscription)) was still live: "
                    + "it had asked for \(lifecycle.demand(before: death.seq).valuesPhrase) and received \(valueCount), "
                    + "nothing had completed or cancelled the subscription, and \(outlived)."
                    + (lifecycles.retainSentence(for: lifecycle.subscriber, before: death.seq) ?? ""),
                fix: "Keep \(subscriber) alive for as long as it is subscribed: store it, or the AnyCancellable that wraps "
                    + "it, in an owner that outlives the work, and cancel the subscription before letting it go.",
                hop: lifecycle.hop
            )
        }
    }
}
