import LifelineLog

/// Finds subscriptions that kept delivering values after their `cancel()` returned.
///
/// Once `cancel()` returns, a subscription must send nothing more: demand does not matter (a
/// subscriber that asked for unlimited values is owed nothing after cancelling), so
/// `demand-exceeded` cannot see this. Only deliveries that the log proves came after the
/// cancel are counted:
/// - a value delivered on the thread (or dispatch queue) that called `cancel()`, after it
///   returned;
/// - a value delivered on another thread or queue once that one had already delivered a value
///   to the same subscriber after the cancel returned. The first value there may have been on
///   its way before the cancel took effect (the publisher read its subscriber just before),
///   which the log cannot rule out; a second one cannot.
///
/// Values an operator's stage had received upstream before the cancel returned and not yet
/// passed on were on their way too: `receive(on:)` and `delay` deliver them from blocks they
/// scheduled before the cancel, on the very queue that cancelled. The contract allows it
/// (`cancel()` need not stop a publisher at once, only take effect quickly), so that many
/// values after the cancel are left out before any is counted.
///
/// Only class subscriptions are checked: a value-type subscription (such as
/// `Subscriptions.empty`, which many subscribers share) has no identity of its own, so whose
/// cancel a cancel on it was cannot be told. A subscription that completed before it was
/// cancelled is `value-after-completion`'s business. A value an operator forwards from a delivery that is itself reported upstream is
/// not reported again.
public struct ValueAfterCancelRule: DiagnosisRule {
    public let code = "value-after-cancel"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        let findings = lifecycles.lifecycles.compactMap { finding(in: $0, lifecycles: lifecycles) }
        let late = Set(findings.flatMap(\.late))
        return findings.compactMap { finding in
            let forwarded = lifecycles.calls.enclosingCalls(of: finding.proven).contains { late.contains($0.begin) }
            return forwarded ? nil : diagnosis(finding, in: lifecycles)
        }
    }

    /// What one lifecycle shows: its cancel, every value delivered after the cancel returned,
    /// and the first of them the log proves late.
    private struct Finding {
        let lifecycle: Lifecycle
        let cancel: TraceCall
        let late: [UInt64]
        let proven: UInt64
    }

    private func finding(in lifecycle: Lifecycle, lifecycles: TraceLifecycles) -> Finding? {
        guard let subscription = lifecycle.subscription, lifecycles.trace.object(subscription)?.lifetimeTracked == true,
              let first = lifecycle.cancels.first,
              lifecycle.completions.allSatisfy({ $0.seq > first }),
              let cancel = lifecycles.calls.call(at: first), let returned = cancel.end
        else { return nil }
        let late = lifecycle.deliveries.filter { $0.begin > returned }
        let cancelContext = lifecycles.event(cancel.begin).map(Self.context)
        var deliveredAfterCancel = Set<ExecutionContext>()
        var proven: UInt64?
        for delivery in late.dropFirst(Self.inFlight(lifecycle, before: returned, lifecycles: lifecycles)) {
            guard let context = lifecycles.event(delivery.begin).map(Self.context) else { continue }
            if context == cancelContext || deliveredAfterCancel.contains(context) {
                proven = delivery.begin
                break
            }
            if delivery.end != nil { deliveredAfterCancel.insert(context) }
        }
        guard let proven else { return nil }
        return Finding(lifecycle: lifecycle, cancel: cancel, late: late.map(\.begin), proven: proven)
    }

    /// How many values the subscription had on their way when its cancel returned: an
    /// operator's stage (`receive(on:)`'s, `delay`'s) is subscribed upstream itself, and the
    /// values it had received there and not yet passed on had been scheduled before the cancel.
    /// The contract lets those through (`cancel()` need not stop a publisher at once, only take
    /// effect quickly), so the first that many values after the cancel prove nothing.
    private static func inFlight(_ lifecycle: Lifecycle, before returned: UInt64, lifecycles: TraceLifecycles) -> Int {
        guard let subscription = lifecycle.subscription else { return 0 }
        let received = lifecycles.lifecycles(ofSubscriber: subscription).reduce(0) { count, upstream in
            count + upstream.deliveries.count { $0.begin < returned }
        }
        return max(0, received - lifecycle.deliveries.count { $0.begin < returned })
    }

    /// Where an event ran, for telling deliveries apart: the dispatch queue when the log names
    /// one (a serial queue's blocks run on whichever thread is free), otherwise the thread.
    private enum ExecutionContext: Hashable {
        case queue(UInt32)
        case thread(UInt64)
    }

    private static func context(of event: TraceEvent) -> ExecutionContext {
        event.queue.map(ExecutionContext.queue) ?? .thread(event.thread)
    }

    private func diagnosis(_ finding: Finding, in lifecycles: TraceLifecycles) -> Diagnosis {
        let lifecycle = finding.lifecycle
        let subscription = lifecycle.subscription!
        let subscriber = lifecycles.name(lifecycle.subscriber)
        let count = finding.late.count
        return Diagnosis(
            code: code, severity: .error,
            objects: [subscription, lifecycle.subscriber] + [lifecycle.publisher].compactMap { $0 },
            evidence: [finding.cancel.begin, finding.cancel.end!, finding.proven],
            message: "\(lifecycles.name(subscription)) delivered \(count == 1 ? "a value" : "\(count) values") to "
                + "\(subscriber) after its cancel() returned at @\(finding.cancel.end!): a cancelled subscription must "
                + "send nothing more, whatever the demand.",
            fix: "Make cancel() stop the work that sends values: stop the timer or task that produces them, release "
                + "the subscriber, and check a cancelled state under the same lock before every send.",
            hop: lifecycle.hop
        )
    }
}
