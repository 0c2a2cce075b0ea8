/// Finds pipelines created inside an ``ObservedScope`` that were still running, with their
/// objects alive, when recording stopped after the scope ended.
///
/// What the log alone can prove is narrow, so the rule is conservative:
/// - It needs a scope. Without one, an object alive at stop may simply be owned by something
///   that is meant to keep it; telling a leak from an owner needs the ownership graph, which
///   is a separate analysis.
/// - It needs a cleanly closed log that dropped no events, so that a missing deallocation
///   means "alive at stop".
/// - Only a hop still subscribed when recording stopped is reported: one that completed or was
///   cancelled is not, even if its objects are still alive (an AnyCancellable that a live owner
///   keeps after its publisher finished is normal), and neither is one whose subscriber or
///   subscription died (a subscriber alive at stop whose subscription died is no longer
///   subscribed to anything; `subscription-not-retained` says why).
/// - "Created inside the scope" means first seen in the log inside it: an object created
///   earlier and first used inside the scope counts, as long as its hop was subscribed there and
///   still is at stop.
/// - Value-type subscribers and subscriptions have no lifetime and are never reported.
///
/// One diagnosis is issued per pipeline, at its most downstream hop, naming every live object
/// of that hop and the hops upstream of it. When the log has ownership snapshots, the message
/// adds what held the hop's subscriber (or the first of them) in the last snapshot that shows it alive: the shortest
/// strong path from a root, or the retain cycle it hangs from; and the finding's leak trace is
/// that path (``ScopeLeakTrace``).
public struct LeakedSubscriptionRule: DiagnosisRule {
    public let code = "leaked-subscription"
    /// The scope that must leave nothing behind.
    public let scope: ObservedScope

    /// Creates the rule for one scope.
    public init(scope: ObservedScope) {
        self.scope = scope
    }

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        guard lifecycles.endIsKnown else { return [] }
        return lifecycles.lifecycles.compactMap { lifecycle in
            guard lifecycle.downstream.isEmpty, lifecycle.subscription != nil else { return nil }
            let chain = upstreamChain(of: lifecycle, in: lifecycles).filter { $0.state == .subscribed }
            let leaked = Array(Set(chain.flatMap { [$0.subscriber, $0.subscription!] })).sorted().filter { object in
                lifecycles.isAliveAtStop(object) && lifecycles.firstSeen(object).map(scope.contains) == true
            }
            guard !leaked.isEmpty, chain.contains(where: { $0.id == lifecycle.id }) else { return nil }
            let names = leaked.map(lifecycles.name).joined(separator: ", ")
            let held = leaked.contains(lifecycle.subscriber) ? lifecycle.subscriber : leaked[0]
            let holding = lifecycles.retainExplanation(for: held)
            return Diagnosis(
                code: code, severity: .error,
                objects: leaked,
                evidence: (leaked.compactMap(lifecycles.firstSeen) + [scope.end]).sorted(),
                message: "\(names) \(leaked.count == 1 ? "was" : "were") created inside the observed scope and "
                    + "\(leaked.count == 1 ? "was" : "were") still alive and subscribed when recording stopped after the "
                    + "scope ended: the subscription outlived what owned it."
                    + (holding.map { lifecycles.retainSentence(for: held, held: $0) } ?? ""),
                fix: "Cancel what the scope started before it ends (cancel or release its AnyCancellable), and break any "
                    + "strong reference cycle between a subscriber and its owner: capture self weakly in sink and assign "
                    + "closures.",
                hop: lifecycle.hop,
                leakTrace: holding.flatMap { holding in
                    ScopeLeakTrace(of: held, held: holding.explanation, in: holding.graph, scopeEnd: scope.end, lifecycles: lifecycles)?.trace
                }
            )
        }
    }

    private func upstreamChain(of lifecycle: Lifecycle, in lifecycles: TraceLifecycles) -> [Lifecycle] {
        var seen = Set([lifecycle.id])
        var chain = [lifecycle]
        var index = 0
        while index < chain.count {
            for id in chain[index].upstream where seen.insert(id).inserted { chain.append(lifecycles.lifecycle(id)) }
            index += 1
        }
        return chain
    }
}
