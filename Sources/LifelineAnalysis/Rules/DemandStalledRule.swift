import LifelineLog

/// Finds pipelines whose subscriber stopped asking for values: when recording stopped, the
/// subscription was still open and neither completed nor cancelled, both ends were alive,
/// and every value the subscriber had asked for had been delivered.
///
/// Only a cleanly closed log that dropped no events says what was alive at the end, so
/// nothing is reported otherwise. Only the end of a pipeline is checked: an operator's stage
/// with no outstanding demand is waiting for its downstream (as `flatMap(maxPublishers:)`
/// does while a child runs), which is back pressure, not a stall. Nor is a `for await` loop's
/// subscriber, which asks for the next value when the loop's body has finished with the last:
/// the log cannot tell a body still running from one that never returns.
///
/// The finding says what the stall holds back, from the hops upstream in a single chain:
/// how many more values the nearest hop that got more than the end received, and the
/// completion a hop upstream received that never reached the end.
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
                  lifecycles.trace.object(lifecycle.subscriber)?.isForAwaitSubscriber != true,
                  lifecycles.deallocations[subscription] == nil,
                  lifecycles.overlappedLifecycle(for: lifecycle) == nil
            else { return nil }
            return diagnosis(of: lifecycle, received: received, subscription: subscription, in: lifecycles)
        }
    }

    private func diagnosis(
        of lifecycle: Lifecycle, received: UInt64, subscription: TraceObjectID, in lifecycles: TraceLifecycles
    ) -> Diagnosis {
        let subscriber = lifecycles.name(lifecycle.subscriber)
        let last = lifecycle.deliveries.last
        let upstream = Self.chainUpstream(of: lifecycle, in: lifecycles)
        let fuller = upstream.first { $0.deliveries.count > lifecycle.deliveries.count }
        let finished = upstream.first { !$0.completions.isEmpty }

        var sentences: [String] = []
        if lifecycle.totalDemand == .none {
            sentences.append("\(subscriber) never asked for any values.")
        } else {
            var asked = "\(subscriber) asked for \(lifecycle.totalDemand.valuesPhrase), received all of them, and asked for no more"
            if let last {
                asked += ": the value delivered at @\(last.begin) used its last demand"
                if let end = last.end, case .value(_, let returned?, _)? = lifecycles.event(end)?.kind {
                    asked += " and receive(_:) returned \(returned.swiftSpelling) (@\(end))"
                }
            }
            sentences.append(asked + ".")
        }
        var heldBack: [String] = []
        if let fuller, let lastUpstream = fuller.deliveries.last {
            heldBack.append("\(lifecycles.name(fuller.subscriber)) received \(fuller.deliveries.count) values "
                + "(the last at @\(lastUpstream.begin)), \(fuller.deliveries.count - lifecycle.deliveries.count) more than reached it")
        }
        if let finished, let completion = finished.completions.first {
            let receiver = finished.id == fuller?.id ? "" : "\(lifecycles.name(finished.subscriber)) received "
            heldBack.append("\(receiver)\(completion.completion.swiftSpelling) at @\(completion.seq), which never reached it")
        }
        if !heldBack.isEmpty {
            sentences.append("Upstream, " + heldBack.joined(separator: ", and ") + ".")
        }
        let stuck = heldBack.isEmpty ? "nothing more could arrive" : "none of that could arrive"
        sentences.append("\(lifecycles.name(subscription)) was still open with no outstanding demand when recording stopped, so \(stuck).")

        let evidence = [received] + lifecycle.grants.map(\.seq) + [last?.begin, last?.end].compactMap { $0 }
            + [fuller?.deliveries.last?.begin, finished?.completions.first?.seq].compactMap { $0 }
        return Diagnosis(
            code: code, severity: .warning,
            objects: [lifecycle.subscriber, subscription] + [lifecycle.publisher].compactMap { $0 },
            evidence: Array(Set(evidence)).sorted(),
            message: sentences.joined(separator: " "),
            fix: fix(for: lifecycle, subscriber: subscriber),
            hop: lifecycle.hop
        )
    }

    /// The fix: a subscriber that asks for each value with `request(_:)` once it is done with
    /// the previous one (as an uploader does) must ask on every path that finishes a value.
    private func fix(for lifecycle: Lifecycle, subscriber: String) -> String {
        let laterRequests = lifecycle.grants.filter { grant in
            grant.source == .request && lifecycle.deliveries.first.map { grant.seq > $0.begin } == true
        }
        if let lastRequest = laterRequests.last, let last = lifecycle.deliveries.last, lastRequest.seq < last.begin {
            return "\(subscriber) asks for each next value with request(_:) once it is done with the previous one "
                + "(the last time at @\(lastRequest.seq)), and did not after the value at @\(last.begin): call request(_:) "
                + "on every path that finishes with a value, failures included, or cancel the subscription once no more "
                + "values are wanted."
        }
        return "Ask for more when \(subscriber) is ready (call request(_:) again, or return .max(n) from "
            + "receive(_:)), or cancel the subscription once no more values are wanted."
    }

    /// The hops upstream of `lifecycle`, nearest first, as long as each has a single hop
    /// upstream: past a hop that merges several, counts of values no longer compare.
    private static func chainUpstream(of lifecycle: Lifecycle, in lifecycles: TraceLifecycles) -> [Lifecycle] {
        var chain: [Lifecycle] = []
        var current = lifecycle
        var seen: Set<Lifecycle.ID> = [lifecycle.id]
        while current.upstream.count == 1, seen.insert(current.upstream[0]).inserted {
            current = lifecycles.lifecycle(current.upstream[0])
            chain.append(current)
        }
        return chain
    }
}
