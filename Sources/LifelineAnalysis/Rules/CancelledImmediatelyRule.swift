/// Finds subscriptions cancelled during, or right after, the subscribe call that made them,
/// before any value or completion arrived: the shape of `_ = publisher.sink { }`, where the
/// dropped AnyCancellable cancels at once.
///
/// Only the end of a pipeline is checked (a subscriber that is no operator's stage, subscribed
/// from the program's own code), and only a cancel that is not itself part of another cancel:
/// operators that cancel upstream (`first()`, `prefix`, `zip`, `switchToLatest`) or that
/// forward a downstream cancel are never reported. "Right after" means the cancel is the next
/// call the program made on the same thread once the subscribe call returned, with no mark
/// in between. A completion
/// before the cancel (as `Just` sends inside the subscribe call) clears it, and a cancel that
/// answers a duplicate subscription is left to `duplicate-subscription`.
public struct CancelledImmediatelyRule: DiagnosisRule {
    public let code = "cancelled-immediately"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        lifecycles.lifecycles.compactMap { lifecycle in
            guard let subscription = lifecycle.subscription, let cancel = lifecycle.cancels.first,
                  lifecycle.completions.allSatisfy({ $0.seq > cancel }), lifecycle.valueCount(before: cancel) == 0,
                  lifecycles.isPipelineEnd(lifecycle), lifecycles.overlappedLifecycle(for: lifecycle) == nil,
                  let firstCall = lifecycle.subscribeCall ?? lifecycle.subscriptionCall,
                  let subscribe = lifecycles.calls.call(at: firstCall),
                  let cancelEvent = lifecycles.event(cancel), cancelEvent.thread == subscribe.thread,
                  !lifecycles.calls.enclosingCalls(of: cancel).contains(where: { isCancel($0, in: lifecycles) })
            else { return nil }
            let within = subscribe.isOpen(at: cancel)
            let rightAfter = lifecycles.calls.call(at: cancel)?.depth == 0
                && lifecycles.calls.topLevelCall(onThread: cancelEvent.thread, before: cancel)?.begin == subscribe.begin
                && !markedBetween(subscribe.end ?? cancel, cancel, onThread: cancelEvent.thread, in: lifecycles)
            guard within || rightAfter else { return nil }
            let subscriber = lifecycles.name(lifecycle.subscriber)
            let source = lifecycle.publisher.map { " to \(lifecycles.name($0))" } ?? ""
            let when = within ? "during the subscribe call that created it" : "right after \(subscriber) subscribed\(source)"
            return Diagnosis(
                code: code, severity: .warning,
                objects: [subscription, lifecycle.subscriber] + [lifecycle.publisher].compactMap { $0 },
                evidence: Array(Set([subscribe.begin, lifecycle.subscriptionCall, within ? nil : subscribe.end, cancel]
                    .compactMap { $0 })).sorted(),
                message: "\(lifecycles.name(subscription)) was cancelled \(when), before any value arrived: "
                    + "the subscription was dropped as soon as it was made.",
                fix: "Keep the AnyCancellable that sink or assign returns for as long as you want values: store it in a "
                    + "property or with .store(in: &cancellables); `_ = publisher.sink { }` cancels at once.",
                hop: lifecycle.hop
            )
        }
    }

    /// Whether the program marked a point on `thread` between two events: a mark says it did
    /// something in between, so the cancel was not right after the subscribe.
    private func markedBetween(_ start: UInt64, _ end: UInt64, onThread thread: UInt64, in lifecycles: TraceLifecycles) -> Bool {
        (start + 1..<max(end, start + 1)).contains { seq in
            guard let event = lifecycles.event(seq), event.thread == thread, case .mark = event.kind else { return false }
            return true
        }
    }

    private func isCancel(_ call: TraceCall, in lifecycles: TraceLifecycles) -> Bool {
        if case .cancel? = lifecycles.event(call.begin)?.kind { return true }
        return false
    }
}
