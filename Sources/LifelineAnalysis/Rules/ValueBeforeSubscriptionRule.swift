/// Finds values or a completion delivered to a subscriber before it received a subscription.
///
/// Only a subscriber whose subscribe call the log shows is checked: a recording that started
/// while a pipeline was already running sees its values but not its handshake, and that
/// proves nothing.
///
/// A completion that overtakes the subscription is typically a publisher that finished on
/// another thread while it was still handing out the subscription (OpenCombine's `Future`
/// fulfilled on another queue during its `receive(subscriber:)`). The finding cites the
/// subscription that arrived late; when the subscriber had taken the completion as its end
/// and subscribed again (as `retry` does), `duplicate-subscription` leaves that late
/// subscription to this finding.
public struct ValueBeforeSubscriptionRule: DiagnosisRule {
    public let code = "value-before-subscription"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        lifecycles.lifecycles.compactMap { lifecycle in
            guard let subscribeCall = lifecycle.subscribeCall else { return nil }
            let value = lifecycle.deliveries.first { lifecycle.state(before: $0.begin) == .awaitingSubscription }
            let completion = lifecycle.completions.first { lifecycle.state(before: $0.seq) == .awaitingSubscription }
            guard value != nil || completion != nil else { return nil }
            let source = lifecycle.publisher.map { " from \(lifecycles.name($0))" } ?? ""
            let subscriber = lifecycles.name(lifecycle.subscriber)
            if let value, value.begin < completion?.seq ?? .max {
                return Diagnosis(
                    code: code, severity: .error,
                    objects: [lifecycle.subscriber] + [lifecycle.publisher].compactMap { $0 },
                    evidence: [subscribeCall, value.begin],
                    message: "\(subscriber) received a value\(source) before it had received any subscription.",
                    fix: "Hand the subscriber its subscription with receive(subscription:) first, and send values only "
                        + "after it has requested them.",
                    hop: lifecycle.hop
                )
            }
            guard let completion else { return nil }
            let late = lifecycle.subscriptionCall.flatMap { call in
                lifecycle.subscription.map { (subscription: $0, call: call) }
            }
            let lateSentence = late.map { late in
                " Its subscription \(lifecycles.name(late.subscription)) arrived only afterwards, on "
                    + "\(lifecycles.event(late.call).map(lifecycles.trace.executionContextName) ?? "another thread")."
            } ?? ""
            return Diagnosis(
                code: code, severity: .error,
                objects: [lifecycle.subscriber] + [lifecycle.publisher, late?.subscription].compactMap { $0 },
                evidence: [subscribeCall, completion.seq] + [late?.call].compactMap { $0 },
                message: "\(subscriber) received its completion (\(completion.completion.swiftSpelling))\(source) before it "
                    + "had received any subscription.\(lateSentence)",
                fix: "Hand the subscriber its subscription with receive(subscription:) before sending it anything, even "
                    + "when the work finishes on another thread meanwhile: hold the lock that guards the result across the "
                    + "handshake; with OpenCombine's Future, subscribe on the queue that fulfils its promise (subscribe(on:)).",
                hop: lifecycle.hop
            )
        }
    }

    /// Whether `lifecycle` received its subscription only after a completion had ended it (the
    /// publisher finished on another thread while handing the subscription out), which this
    /// rule reports: the late subscription may then overlap the subscriber's next one.
    static func receivedItsSubscriptionLate(_ lifecycle: Lifecycle) -> Bool {
        guard lifecycle.subscribeCall != nil, let received = lifecycle.subscriptionCall,
              let completion = lifecycle.completions.first
        else { return false }
        return completion.seq < received
    }
}
