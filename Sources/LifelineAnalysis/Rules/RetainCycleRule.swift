import LifelineLog

/// Finds loops of strong references that keep a subscription's objects alive: the
/// `retain-cycle` diagnosis, read from the log's ownership snapshots.
///
/// A strongly connected component of a snapshot's strong references is reported when:
/// - it contains a subscriber, a subscription or an `AnyCancellable`;
/// - it contains an object outside Combine's own machinery: a registered root, another user
///   object (such as a view model captured by a closure), an `AnyCancellable` or a collection
///   that is not Combine's own (a subject's set of conduits, held only by the subject, is).
///   A loop made only of subjects, publishers, subscriptions and subscribers is how
///   OpenCombine works while a subscription runs (a subject holds its conduit, which holds
///   the subject and the subscriber); it ends with the completion or the cancel, and is not
///   reported. A pipeline left running that way is `leaked-subscription`'s business;
/// - no later snapshot shows the loop broken: one of its objects deallocated, or its objects
///   alive without the loop. A loop that the program cancels on teardown is not reported as
///   long as a snapshot after the teardown shows it gone.
///
/// Each loop is reported once, from the latest snapshot where it exists, as the shortest
/// chain of references through its most telling object, in words:
/// `ViewModel.cancellables → Set<AnyCancellable> → AnyCancellable → Sink.receiveValue (closure) → ViewModel`.
/// The evidence is the snapshot's sequence number and the events where the loop's objects
/// first appear. It is an error when the loop is still there in the log's last snapshot, a
/// warning when later snapshots no longer show its objects at all.
public struct RetainCycleRule: DiagnosisRule {
    public let code = "retain-cycle"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        let trace = lifecycles.trace
        let graphs = trace.snapshots.map { OwnershipGraph(snapshot: $0, trace: trace) }
        var latest: [[TraceSnapshot.Edge]: Int] = [:]
        for (position, graph) in graphs.enumerated() {
            for cycle in graph.strongCycles where Self.isReported(cycle, in: graph) {
                latest[cycle.chain] = position
            }
        }
        return latest.sorted { $0.value < $1.value || ($0.value == $1.value && $0.key.lexicographicallyPrecedes($1.key, by: Self.precedes)) }
            .compactMap { chain, position in
                let later = graphs[(position + 1)...]
                guard !later.contains(where: { Self.showsBroken(chain, $0) }) else { return nil }
                let graph = graphs[position]
                let cycle = graph.strongCycles.first { $0.chain == chain }!
                return diagnosis(cycle, in: graph, isLast: later.isEmpty, lifecycles: lifecycles)
            }
    }

    private func diagnosis(_ cycle: RetainCycle, in graph: OwnershipGraph, isLast: Bool, lifecycles: TraceLifecycles) -> Diagnosis {
        let snapshot = graph.snapshot
        let objects = cycle.chainObjects
        let created = objects.compactMap(lifecycles.firstSeen)
        let capture = cycle.chain.first { edge in
            edge.field.hasSuffix("(closure)") && [.root, .object].contains(graph.node(edge.to)?.kind)
        }
        let weakening = capture.map { edge in
            "capture \(graph.name(of: edge.to)) weakly in \(graph.name(of: edge.from))'s closure (`[weak self]`), or "
        } ?? "make one of the references weak, or "
        return Diagnosis(
            code: code, severity: isLast ? .error : .warning,
            objects: objects,
            evidence: Array(Set(created + [snapshot.seq])).sorted(),
            message: "Retain cycle: \(graph.words(cycle.chain)). "
                + "These objects hold each other strongly (\(objects.map(lifecycles.name).joined(separator: ", "))), "
                + "so none of them can be deallocated, and the subscription keeps running, until the loop is broken "
                + "(snapshot \(snapshot.index) \"\(snapshot.label)\", after event #\(snapshot.seq)"
                + (isLast ? ", the last snapshot)." : "; no later snapshot shows these objects)."),
            fix: "Break the loop: " + weakening + "cancel the subscription on teardown (call cancel() on the "
                + "AnyCancellable, or empty the set that stores it) before the owner is released."
        )
    }

    /// Whether a loop in `graph` is one this rule reports (see the type's documentation).
    static func isReported(_ cycle: RetainCycle, in graph: OwnershipGraph) -> Bool {
        let kinds = Set(cycle.objects.compactMap { id -> TraceSnapshot.Node.Kind? in
            guard let node = graph.node(id) else { return nil }
            return node.kind == .collection && isCombineStorage(id, in: graph) ? .subject : node.kind
        })
        return !kinds.isDisjoint(with: [.subscriber, .subscription, .cancellable])
            && !kinds.isDisjoint(with: [.root, .object, .closureContext, .cancellable, .collection])
    }

    /// Whether the collection `id` belongs to Combine's machinery: only subjects, publishers,
    /// subscriptions and subscribers hold it strongly, like a subject's set of conduits.
    private static func isCombineStorage(_ id: TraceObjectID, in graph: OwnershipGraph) -> Bool {
        let machinery: Set<TraceSnapshot.Node.Kind> = [.subject, .publisher, .subscription, .subscriber]
        let holders = graph.snapshot.edges.filter { $0.to == id && $0.ownership.isStrong }.compactMap { graph.node($0.from)?.kind }
        return !holders.isEmpty && holders.allSatisfy(machinery.contains)
    }

    /// Whether `graph` shows the loop `chain` broken: one of its objects dead, or all of them
    /// alive without one of the loop's strong references.
    private static func showsBroken(_ chain: [TraceSnapshot.Edge], _ graph: OwnershipGraph) -> Bool {
        let nodes = chain.map { graph.node($0.from) }
        if nodes.contains(where: { $0?.alive == false }) { return true }
        guard nodes.allSatisfy({ $0 != nil }) else { return false }
        let edges = Set(graph.snapshot.edges)
        return !chain.allSatisfy(edges.contains)
    }

    private static func precedes(_ lhs: TraceSnapshot.Edge, _ rhs: TraceSnapshot.Edge) -> Bool {
        (lhs.from, lhs.field, lhs.to) < (rhs.from, rhs.field, rhs.to)
    }
}

extension OwnershipGraph {
    /// The loops of this snapshot that `retain-cycle` would report from it alone: those that
    /// hold a subscriber, subscription or AnyCancellable and an object outside Combine's
    /// machinery (see ``RetainCycleRule``). Whether a later snapshot shows them broken is the
    /// rule's business, across snapshots.
    public var retainCycles: [RetainCycle] {
        strongCycles.filter { RetainCycleRule.isReported($0, in: self) }
    }
}
