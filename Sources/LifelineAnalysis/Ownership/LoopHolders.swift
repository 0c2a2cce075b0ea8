import LifelineLog

/// What held a retain cycle's objects from outside the loop, read back through the snapshots
/// up to the one that reports the loop.
///
/// An owner is a holder outside the loop and outside Combine's machinery: a registered root, a
/// global variable,
/// another user object (a screen holding its view model), a closure's context, an
/// `AnyCancellable` or a collection that is not a subject's own. Subjects, publishers,
/// subscriptions and subscribers holding the loop are the subscription it runs, not an owner.
enum LoopHolders: Hashable, Sendable {
    /// The reported snapshot shows an owner holding one of the loop's objects: `edge` is its
    /// reference.
    case owned(TraceSnapshot.Edge)
    /// From snapshot `since` on, nothing but the loop and Combine's machinery held the loop's
    /// objects, and the runtime counted no strong reference to them that the snapshot does not
    /// draw. `lastOwner` is the owner's reference in `lastOwned`, the last snapshot that
    /// checked an owner holding them, when one did.
    case released(since: TraceSnapshot, lastOwner: TraceSnapshot.Edge?, lastOwned: TraceSnapshot?)

    /// What held `loop`'s objects, read from the last of `snapshots` (the one that reports the
    /// loop) back to the last owner a snapshot checked, or to where the loop's objects were not
    /// all alive yet. `nil` when the reported snapshot proves neither: no owner, but references
    /// the runtime counted that it does not draw (the stack, a global), or counts not read.
    ///
    /// A per-call snapshot checks a few objects and takes the others from earlier snapshots,
    /// so an object's counts prove nothing about the moment after the owner let go until a
    /// snapshot after that has checked the object; from there on each snapshot shows its
    /// counts as the last check found them.
    init?(of loop: Set<TraceObjectID>, through snapshots: ArraySlice<TraceSnapshot>) {
        guard let reported = snapshots.last else { return nil }
        if let edge = Self.ownerEdges(of: loop, in: reported, checkedOnly: false).first {
            self = .owned(edge)
            return
        }
        // Back to the last snapshot that checked an owner holding the loop, or to the first
        // with all of the loop alive, at most ``lookBack`` snapshots.
        var start = snapshots.endIndex
        var owner: (edge: TraceSnapshot.Edge, snapshot: TraceSnapshot)?
        for position in snapshots.indices.reversed().prefix(Self.lookBack) {
            let snapshot = snapshots[position]
            guard loop.allSatisfy({ snapshot.node($0)?.alive == true }) else { break }
            if let edge = Self.ownerEdges(of: loop, in: snapshot, checkedOnly: true).first {
                owner = (edge, snapshot)
                break
            }
            start = position
        }
        // Forward from there: `since` is the first snapshot of the unbroken run, up to the
        // reported one, that shows the loop alone, each of its objects checked since.
        var checkedSince = Set<TraceObjectID>()
        var since: TraceSnapshot?
        for snapshot in snapshots[start...] {
            checkedSince.formUnion(loop.filter(snapshot.checked))
            if checkedSince == loop, Self.isHeldOnlyByItselfAndCombine(loop, in: snapshot) {
                if since == nil { since = snapshot }
            } else {
                since = nil
            }
        }
        guard let since else { return nil }
        self = .released(since: since, lastOwner: owner?.edge, lastOwned: owner?.snapshot)
    }

    /// How many snapshots back an owner is looked for: a log of per-call snapshots holds
    /// thousands, and each reported loop reads them, so the cost stays that many snapshots per
    /// loop. An owner further back goes unnamed.
    static let lookBack = 1_000

    /// The strong references owners hold to `loop`'s objects in `snapshot`, ordered by
    /// object, holder and field; with `checkedOnly`, only those of holders the snapshot
    /// checked itself.
    private static func ownerEdges(of loop: Set<TraceObjectID>, in snapshot: TraceSnapshot, checkedOnly: Bool) -> [TraceSnapshot.Edge] {
        loop.sorted().flatMap { id in
            snapshot.holders(of: id).filter { holder in
                !loop.contains(holder) && isOwner(holder, in: snapshot) && (!checkedOnly || snapshot.checked(holder))
            }.flatMap { holder in
                snapshot.edges(from: holder).filter { $0.to == id && $0.ownership.isStrong }
            }
        }
    }

    /// Whether `holder` is alive in `snapshot` and outside Combine's machinery.
    static func isOwner(_ holder: TraceObjectID, in snapshot: TraceSnapshot) -> Bool {
        guard let node = snapshot.node(holder), node.alive else { return false }
        switch node.kind {
        case .root, .global, .object, .closureContext, .task, .cancellable: return true
        case .collection: return !RetainCycleRule.isCombineStorage(holder, in: snapshot)
        case .publisher, .subscription, .subscriber, .subject: return false
        }
    }

    /// Whether `snapshot` draws every strong reference the runtime counted to each of
    /// `loop`'s objects, none of them from an owner.
    private static func isHeldOnlyByItselfAndCombine(_ loop: Set<TraceObjectID>, in snapshot: TraceSnapshot) -> Bool {
        guard ownerEdges(of: loop, in: snapshot, checkedOnly: false).isEmpty else { return false }
        return loop.allSatisfy { id in
            guard let counts = snapshot.node(id)?.retainCounts else { return false }
            let drawn = snapshot.holders(of: id).reduce(0) { total, holder in
                guard snapshot.node(holder)?.alive == true else { return total }
                return total + snapshot.edges(from: holder).filter { $0.to == id && $0.ownership.isStrong }.count
            }
            return counts.strong <= drawn
        }
    }
}
