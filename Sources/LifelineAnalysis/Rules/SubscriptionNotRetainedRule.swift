/// Finds subscriptions that died while their subscriber was still subscribed to them.
///
/// The subscription's deallocation proves it when nothing had completed or cancelled it
/// before the deallocation event, and the subscriber provably outlived it (a later liveness
/// check saw the subscriber alive, or it was alive when recording stopped). Value-type
/// subscriptions have no lifetime and are never reported.
public struct SubscriptionNotRetainedRule: DiagnosisRule {
    public let code = "subscription-not-retained"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        lifecycles.deallocations.values.sorted { $0.seq < $1.seq }.compactMap { death in
            guard let lifecycle = lifecycles.lifecycles(ofSubscription: death.object)
                    .last(where: { ($0.subscriptionCall ?? .max) < death.seq }),
                  let received = lifecycle.subscriptionCall,
                  (lifecycle.end ?? .max) > death.seq,
                  lifecycles.provablyOutlived(lifecycle.subscriber, death)
            else { return nil }
            let subscription = lifecycles.name(death.object)
            let subscriber = lifecycles.name(lifecycle.subscriber)
            let returned = lifecycles.calls.call(at: received)?.end
            // Right after: the lifecycle did nothing between the return and the death but return
            // from the calls around it.
            let rightAfter = returned.map { returned in
                returned < death.seq && !lifecycle.events.contains { seq in
                    seq > returned && seq < death.seq && lifecycles.event(seq)?.phase != .end
                }
            } ?? false
            let when = rightAfter
                ? "right after \(subscriber)'s receive(subscription:) returned"
                : "while \(subscriber) was still subscribed to it"
            return Diagnosis(
                code: code, severity: .error,
                objects: [death.object, lifecycle.subscriber] + [lifecycle.publisher].compactMap { $0 },
                evidence: ([received] + [returned].compactMap { $0 } + [death.seq]).sorted(),
                message: "\(subscription) was deallocated \(when), and nothing had completed or cancelled it: "
                    + "nothing kept a strong reference to the subscription, so no value or completion can arrive.",
                fix: "Keep a strong reference to the subscription while it runs: have \(subscriber) store it in "
                    + "receive(subscription:), or return it as a Cancellable (AnyCancellable) for the owner to keep, "
                    + "and cancel it when done.",
                hop: lifecycle.hop
            )
        }
    }
}
