import LifelineLog

/// Finds, in a start/stop recording with ownership snapshots, pipeline objects that outlived
/// their work: a subscriber, its subscription or the AnyCancellable that wraps it, still alive
/// in the snapshot taken at stop although the subscription had completed or been cancelled,
/// and kept alive by a retain cycle or, when the program registered roots with
/// `Lifeline.track`, by nothing those roots reach.
///
/// The rule only says what the graph proves:
/// - It needs the snapshot taken at stop; without one it reports nothing.
/// - An object a registered root reaches is owned, and not reported: an AnyCancellable that a
///   live owner still keeps after its publisher finished is normal.
/// - An object nothing in the graph holds is reported only when roots were registered: with
///   none, it may be held by the stack or a global the graph cannot see, so the rule stays
///   silent rather than guess. Such a finding is a warning; one held by a retain cycle, which
///   cannot be freed, is an error. A retain cycle here is one `RetainCycleRule` reports (it
///   holds an object outside Combine's machinery): a subject and the conduit of a subscription
///   that is still running hold each other until it ends, which is no leak of the finished one.
///
/// One diagnosis is issued per subscription, naming each of its objects that leaked once.
public struct LeakedAtStopRule: DiagnosisRule {
    public let code = "leaked-subscription"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        guard let snapshot = lifecycles.trace.snapshots.last, snapshot.reason == .stop else { return [] }
        let graph = lifecycles.recentGraphs.graph(of: snapshot, in: lifecycles.trace)
        let rootsRegistered = snapshot.nodes.contains { $0.kind == .root && $0.alive }
        // The AnyCancellables that hold each subscriber strongly, in the snapshot's order.
        var wrappersOf: [TraceObjectID: [TraceObjectID]] = [:]
        for edge in snapshot.edges where edge.ownership.isStrong && snapshot.node(edge.from)?.kind == .cancellable {
            wrappersOf[edge.to, default: []].append(edge.from)
        }
        var reported = Set<TraceObjectID>()
        return lifecycles.lifecycles.compactMap { lifecycle in
            guard let end = lifecycle.end,
                  lifecycles.lifecycleIDs(ofSubscriber: lifecycle.subscriber).last == lifecycle.id
            else { return nil }
            let wrappers = wrappersOf[lifecycle.subscriber, default: []]
            let candidates = [lifecycle.subscriber] + (lifecycle.subscription.map { [$0] } ?? []) + wrappers
            var leaked: [(object: TraceObjectID, explanation: AliveExplanation)] = []
            for object in candidates where !reported.contains(object) {
                let explanation = graph.whyAlive(object)
                switch explanation {
                case .heldByCycle(let cycle, _) where RetainCycleRule.isReported(cycle, in: graph):
                    leaked.append((object, explanation))
                case .unheld where rootsRegistered:
                    leaked.append((object, explanation))
                case .unknown, .deallocated, .deallocatedBefore, .heldByRoot, .unheld, .heldByCycle:
                    // A loop of Combine's machinery only (a subject and the conduit of a
                    // subscription still running) is the running subscription's business.
                    continue
                }
            }
            guard let first = leaked.first else { return nil }
            for (object, _) in leaked { reported.insert(object) }
            let onCycle = leaked.contains { if case .heldByCycle = $0.explanation { return true } else { return false } }
            let names = leaked.map { lifecycles.name($0.object) }.joined(separator: ", ")
            let ended = lifecycle.completions.first?.seq == end ? "completed" : "was cancelled"
            let because = graph.sentence(explaining: first.explanation, subject: lifecycles.name(first.object))
            return Diagnosis(
                code: code, severity: onCycle ? .error : .warning,
                objects: leaked.map(\.object),
                evidence: [end, snapshot.seq],
                message: "\(names) \(leaked.count == 1 ? "was" : "were") still alive when recording stopped although the "
                    + "subscription \(ended) at @\(end): in snapshot \(snapshot.index) \"\(snapshot.label)\", \(because)"
                    + (onCycle ? "." : ", and no object registered with Lifeline.track reaches it."),
                fix: onCycle
                    ? "Break the loop: capture the owner weakly in sink and assign closures (`[weak self]`), or release "
                        + "the AnyCancellable (set it to nil, or empty the set that stores it) once the work has ended."
                    : "Release what the finished subscription left behind: drop the AnyCancellable or subscriber from "
                        + "wherever it is kept (a global, a static or a cache outside your object graph) once the work "
                        + "has ended.",
                hop: lifecycle.hop
            )
        }
    }
}
