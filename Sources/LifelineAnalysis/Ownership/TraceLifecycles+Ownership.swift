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
}
