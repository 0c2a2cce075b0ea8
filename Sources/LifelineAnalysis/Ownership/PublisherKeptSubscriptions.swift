import LifelineLog

/// The subscriptions a publisher still held in a snapshot after they had ended: each had been
/// cancelled or had completed (see ``HopEnding``) and its call had returned, yet
/// a subject or publisher kept it, directly or in a collection of its own, like a subject that
/// forgets to remove a cancelled subscription from its list. Combine's contract asks a
/// publisher to let go of what a cancel ended; one that does not keeps every cancelled
/// subscription, and the subscriber each holds, for as long as it lives.
///
/// Grouped by the reference that keeps them (the holder and its field), so that a subject
/// that kept a thousand cancelled subscriptions is one finding with a count.
struct PublisherKeptSubscriptions {
    /// One publisher's reference that keeps ended subscriptions.
    struct Group {
        /// The subject or publisher that keeps them.
        let publisher: TraceObjectID
        /// The reference from the publisher, through its own collection when it keeps them in
        /// one, to the first of them.
        let path: [TraceSnapshot.Edge]
        /// How each subscription's work ended, in the order of their objects.
        let endings: [HopEnding]
    }

    /// The groups, ordered by publisher, then by path.
    let groups: [Group]

    /// Finds the ended subscriptions publishers hold in `snapshot`.
    init(in snapshot: TraceSnapshot, lifecycles: TraceLifecycles) {
        let publishers: Set<TraceSnapshot.Node.Kind> = [.subject, .publisher]
        func isPublisher(_ id: TraceObjectID) -> Bool { publishers.contains(snapshot.node(id)?.kind ?? .object) }
        func strongEdge(from holder: TraceObjectID, to id: TraceObjectID) -> TraceSnapshot.Edge? {
            snapshot.edges(from: holder).first { $0.to == id && $0.ownership.isStrong }
        }
        // By the publisher and the fields that lead to the subscriptions (a collection's
        // element positions count as one field).
        var found: [String: (path: [TraceSnapshot.Edge], endings: [HopEnding])] = [:]
        for node in snapshot.nodes where node.alive && node.kind == .subscription {
            // A subscription still running for a cancelled pipeline is its subscriber's doing.
            guard let ending = HopEnding(of: node.id, before: snapshot.seq, in: lifecycles), ending.way != .orphaned else { continue }
            for holder in snapshot.holders(of: node.id) where snapshot.node(holder)?.alive == true {
                guard let edge = strongEdge(from: holder, to: node.id) else { continue }
                var path = [edge]
                if !isPublisher(holder) {
                    guard snapshot.node(holder)?.kind == .collection, RetainCycleRule.isCombineStorage(holder, in: snapshot),
                          let owner = snapshot.holders(of: holder).first(where: isPublisher),
                          let into = strongEdge(from: owner, to: holder)
                    else { continue }
                    path.insert(into, at: 0)
                }
                let key = "\(path[0].from) " + path.map { LoopLeakTrace.reference($0, in: lifecycles.trace) }.joined(separator: " ")
                found[key, default: (path, [])].endings.append(ending)
            }
        }
        groups = found.sorted { $0.key < $1.key }.map { _, group in
            Group(publisher: group.path[0].from, path: group.path, endings: group.endings.sorted { $0.object < $1.object })
        }
    }
}
