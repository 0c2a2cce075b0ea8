import LifelineLog

/// Finds subscriptions that sent their subscriber a completion from inside `cancel()`.
///
/// Cancelling ends a subscription without a completion: once `cancel()` is called, the
/// subscriber is owed nothing more, neither values nor `receive(completion:)`. A subscription
/// whose `cancel()` finishes its subscriber (typically by sharing one teardown between finishing
/// and cancelling) calls the subscriber's `receive(completion:)` re-entrantly, while the code
/// that cancelled is still inside `cancel()`: a hand-written subscriber then runs its
/// completion path from its own cancel, or from its owner's deinit releasing the token.
///
/// Only what the log proves is reported: a `receive(completion:)` of the hop's subscriber that
/// began on the same thread while a `cancel()` of the hop's subscription was running there,
/// and was the hop's first completion (a second one is `duplicate-completion`'s). A completion
/// that an operator's stage forwards from one it received inside the same cancel (a shared
/// subscription, as `map` hands its upstream one down) is reported once, where it was sent
/// first.
public struct CompletionDuringCancelRule: DiagnosisRule {
    public let code = "completion-during-cancel"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        let findings = lifecycles.lifecycles.compactMap { finding(in: $0, lifecycles: lifecycles) }
        let nested = Set(findings.map(\.completion.seq))
        return findings.compactMap { finding in
            // A completion nested in another reported one was forwarded from it.
            let forwarded = lifecycles.calls.enclosingCalls(of: finding.completion.seq)
                .prefix { $0.begin != finding.cancel.begin }
                .contains { nested.contains($0.begin) }
            return forwarded ? nil : diagnosis(finding, in: lifecycles)
        }
    }

    /// A hop's first completion and the cancel of its subscription it was delivered inside.
    private struct Finding {
        let lifecycle: Lifecycle
        let cancel: TraceCall
        let completion: Lifecycle.CompletionDelivery
    }

    private func finding(in lifecycle: Lifecycle, lifecycles: TraceLifecycles) -> Finding? {
        guard lifecycle.subscription != nil, let completion = lifecycle.completions.first,
              let first = lifecycle.cancels.first, first < completion.seq
        else { return nil }
        let cancels = Set(lifecycle.cancels)
        guard let cancel = lifecycles.calls.firstEnclosingCall(of: completion.seq, where: { cancels.contains($0.begin) })
        else { return nil }
        return Finding(lifecycle: lifecycle, cancel: cancel, completion: completion)
    }

    private func diagnosis(_ finding: Finding, in lifecycles: TraceLifecycles) -> Diagnosis {
        let lifecycle = finding.lifecycle
        let subscription = lifecycle.subscription!
        let subscriber = lifecycles.name(lifecycle.subscriber)
        let returned = finding.cancel.end.map { ", returned at @\($0)" } ?? ""
        return Diagnosis(
            code: code, severity: .error,
            objects: [subscription, lifecycle.subscriber] + [lifecycle.publisher].compactMap { $0 },
            evidence: [finding.cancel.begin, finding.completion.seq] + [finding.cancel.end].compactMap { $0 },
            message: "\(lifecycles.name(subscription)) sent \(subscriber) \(finding.completion.completion.swiftSpelling) "
                + "(@\(finding.completion.seq)) from inside its cancel() (@\(finding.cancel.begin)\(returned)): cancelling "
                + "ends a subscription without a completion, so \(subscriber)'s receive(completion:) ran re-entrantly, "
                + "inside the call that cancelled it.",
            fix: fix,
            hop: lifecycle.hop
        )
    }

    private var fix: String {
        "Make cancel() end the subscription silently: release the subscriber and stop the work without calling "
            + "receive(completion:); send a completion only when the publisher finishes or fails by itself, never "
            + "from cancel()."
    }
}
