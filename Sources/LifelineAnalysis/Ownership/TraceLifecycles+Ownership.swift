import LifelineLog

extension TraceLifecycles {
    /// What held `object` in the latest snapshot taken before event `seq` (any snapshot when
    /// `seq` is `nil`) in which the object is alive, as a sentence that starts with a space,
    /// or `nil` when no such snapshot exists.
    ///
    /// For example ` In snapshot 4 "stop" (after event #23), Sink #1 is held by a retain cycle
    /// that nothing else in the graph holds: …`.
    func retainSentence(for object: TraceObjectID, before seq: UInt64? = nil) -> String? {
        guard let snapshot = trace.snapshots.last(where: { snapshot in
            snapshot.seq < (seq ?? .max) && snapshot.node(object)?.alive == true
        }) else { return nil }
        let graph = OwnershipGraph(snapshot: snapshot, trace: trace)
        let sentence = graph.sentence(explaining: graph.whyAlive(object), subject: name(object))
        return " In snapshot \(snapshot.index) \"\(snapshot.label)\" (after event #\(snapshot.seq)), \(sentence)."
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
