import LifelineLog

extension TraceLifecycles {
    /// What held `object` in the latest snapshot taken before event `seq` (any snapshot when
    /// `seq` is `nil`) in which the object is alive, as a sentence that starts with a space,
    /// or `nil` when no such snapshot exists.
    ///
    /// For example ` In snapshot 4 "stop" (after event @23), Sink #1 is held by a retain cycle
    /// that nothing else in the graph holds: …`.
    ///
    /// A snapshot that did not check every node (a per-call snapshot, see
    /// ``TraceSnapshot/lastChecked``) is used only when it checked the object and every holder
    /// on the path that explains it, and the explanation is a root's: "nothing else holds it"
    /// needs every node checked. Otherwise the latest complete snapshot before `seq` is.
    func retainSentence(for object: TraceObjectID, before seq: UInt64? = nil) -> String? {
        retainExplanation(for: object, before: seq).map { retainSentence(for: object, held: $0) }
    }

    /// What held an object in one snapshot: the snapshot, its graph and the explanation.
    typealias Retention = (snapshot: TraceSnapshot, graph: OwnershipGraph, explanation: AliveExplanation)

    /// `held`, what held `object`, as ``retainSentence(for:before:)`` says it.
    func retainSentence(for object: TraceObjectID, held: Retention) -> String {
        let sentence = held.graph.sentence(explaining: held.explanation, subject: name(object))
        return " In snapshot \(held.snapshot.index) \"\(held.snapshot.label)\" (after event @\(held.snapshot.seq)), \(sentence)."
    }

    /// What held `object` in the snapshot ``retainSentence(for:before:)`` puts in words, with
    /// that snapshot and its graph.
    func retainExplanation(for object: TraceObjectID, before seq: UInt64? = nil) -> Retention? {
        let candidates = trace.snapshots.filter { snapshot in snapshot.seq < (seq ?? .max) && snapshot.node(object)?.alive == true }
        var chosen: Retention?
        if let latest = candidates.last {
            let graph = recentGraphs.graph(of: latest, in: trace)
            let explanation = graph.whyAlive(object)
            if latest.isComplete || Self.isChecked(explanation, of: object, in: latest) { chosen = (latest, graph, explanation) }
        }
        if chosen == nil, let complete = candidates.last(where: \.isComplete) {
            let graph = recentGraphs.graph(of: complete, in: trace)
            chosen = (complete, graph, graph.whyAlive(object))
        }
        return chosen
    }

    /// Whether `snapshot` checked `object` and every holder on `explanation`'s path, which
    /// leads from a root.
    private static func isChecked(_ explanation: AliveExplanation, of object: TraceObjectID, in snapshot: TraceSnapshot) -> Bool {
        guard case .heldByRoot(_, let path) = explanation, !path.isEmpty else { return false }
        return snapshot.checked(object) && path.allSatisfy { snapshot.checked($0.from) }
    }

    /// What kept `object` alive in `graph`'s snapshot, as ``OwnershipGraph/whyAlive(_:)`` says,
    /// except for an object the snapshot does not show alive whose death the log records, at
    /// or before the snapshot or found by a later check that last saw it alive before the
    /// snapshot: ``AliveExplanation/deallocatedBefore(_:)`` says when it died rather than
    /// that the snapshot did not reach it.
    public func whyAlive(_ object: TraceObjectID, in graph: OwnershipGraph) -> AliveExplanation {
        if let death = deallocations[object], graph.node(object)?.alive != true,
           (death.lastSeenAlive ?? death.seq) <= graph.snapshot.seq {
            return .deallocatedBefore(death)
        }
        return graph.whyAlive(object)
    }
}
