import LifelineLog

/// What the log proves about a loop of strong references in one snapshot: that its objects
/// should be gone (stuck), that they may live, or neither.
///
/// The verdict is taken from facts the log records and a bug cannot fake, never from what kind
/// of objects the loop holds:
/// - **Stuck, its work over:** every hop of each of its objects had completed or been cancelled
///   (and the call had returned) before the snapshot, and no owner outside the loop holds it.
///   The completion or cancel that should have broken the loop came and went.
/// - **Stuck, its owner gone:** ``LoopHolders`` found that from some snapshot on only the loop
///   and Combine's own objects held it, the runtime counting no other strong reference.
/// - **Stuck, out of reach:** a loop of Combine's objects alone that nothing outside it and what
///   it alone keeps references in any way (strong, weak or unowned), the runtime counting no
///   reference the snapshot does not draw: nothing can send to it, complete it or cancel it.
/// - **May live, cancel in reach:** a live `AnyCancellable` outside the loop holds one of its
///   objects and none is on the loop: releasing or cancelling it ends the subscription.
/// - **May live, owned:** an owner outside the loop still holds it. A loop through the program's
///   own objects that holds its own `AnyCancellable` (a sink's closure capturing the view model
///   that stores it), or the handle of a task suspended in a `for await` loop over a publisher
///   (a task's closure capturing the view model that stores the task), is a retain cycle
///   waiting for that owner, or for something the snapshot
///   does not draw, to let go, and is reported as a warning that says so. Any other loop an
///   owner holds is a running subscription the owner can still cancel, or complete (a
///   service's subject).
/// - **Unknown** otherwise: something the snapshot does not draw (the stack, a global, a
///   `Task`) holds or reaches it, and may still end it.
enum LoopVerdict: Hashable, Sendable {
    /// Every hop of every object of the loop had ended, yet the loop holds them and no owner
    /// does.
    case ended([HopEnding])
    /// From snapshot `since` on, only the loop and Combine's own objects held it; `lastOwner`
    /// held it in `lastOwned`, the last snapshot that checked an owner holding it
    /// (``LoopHolders/released(since:lastOwner:lastOwned:)``).
    case released(since: TraceSnapshot, lastOwner: TraceSnapshot.Edge?, lastOwned: TraceSnapshot?)
    /// Nothing outside a loop of Combine's objects references it, and the runtime counts no
    /// reference the snapshot does not draw.
    case outOfReach
    /// A live `AnyCancellable` outside the loop holds one of its objects by `edge`.
    case cancelInReach(TraceSnapshot.Edge)
    /// An owner outside the loop holds one of its objects by `edge`.
    case owned(TraceSnapshot.Edge)
    /// Something the snapshot does not draw (the stack, a global, a `Task`) holds the loop,
    /// whose `AnyCancellable` is on it.
    case heldUnseen
    /// Neither proven.
    case unknown

    /// Whether the loop's objects should be gone: the log proves a leak.
    var isStuck: Bool {
        switch self {
        case .ended, .released, .outOfReach: return true
        case .cancelInReach, .owned, .heldUnseen, .unknown: return false
        }
    }

    /// Whether `retain-cycle` reports the loop: a proven leak, or a loop an owner (or something
    /// the snapshot does not draw) still holds that leaks when it lets go.
    var isReported: Bool {
        switch self {
        case .ended, .released, .outOfReach, .owned, .heldUnseen: return true
        case .cancelInReach, .unknown: return false
        }
    }

    /// The verdict on `cycle` in the last of `snapshots`, whose graph is `graph`.
    init(
        of cycle: RetainCycle, in graph: OwnershipGraph, through snapshots: ArraySlice<TraceSnapshot>, lifecycles: TraceLifecycles
    ) {
        let snapshot = graph.snapshot
        let loop = Set(cycle.objects)
        let outside = loop.sorted().flatMap { id in
            snapshot.holders(of: id).filter { !loop.contains($0) && snapshot.node($0)?.alive == true }
                .flatMap { holder in snapshot.edges(from: holder).filter { $0.to == id } }
        }
        let owners = outside.filter { $0.ownership.isStrong && LoopHolders.isOwner($0.from, in: snapshot) }
        // Every object of the loop that took part in a hop must have ended: one still running
        // (a subscriber whose completion waits in a buffer for demand) has work left.
        let hopping = loop.sorted().filter { id in
            !lifecycles.lifecycleIDs(ofSubscriber: id).isEmpty || !lifecycles.lifecycles(ofSubscription: id).isEmpty
        }
        let endings = hopping.compactMap { HopEnding(of: $0, before: snapshot.seq, in: lifecycles) }
        if !endings.isEmpty, endings.count == hopping.count, owners.isEmpty {
            self = .ended(endings)
            return
        }
        // The loop holds the way to end its subscription: its `AnyCancellable`, or the handle of
        // a task suspended in a `for await` loop over it.
        let holdsCancellable = loop.contains { id in
            snapshot.node(id)?.kind == .cancellable || SuspendedTask(id, in: snapshot, trace: lifecycles.trace) != nil
        }
        if !holdsCancellable, let handle = owners.first(where: { snapshot.node($0.from)?.kind == .cancellable }) {
            self = .cancelInReach(handle)
            return
        }
        guard RetainCycleRule.holdsProgramObject(cycle, in: snapshot, lifecycles: lifecycles) else {
            // A loop of Combine's objects alone is how a subscription runs: something outside
            // can still end it unless nothing outside what it alone keeps references it at all.
            let reached = Self.isReachedFromOutside(loop, in: graph)
            let drawsAll = loop.allSatisfy { id in graph.tallies(of: id)?.allSatisfy { $0.undrawn == 0 } == true }
            self = !reached && drawsAll && loop.allSatisfy(snapshot.checked) ? .outOfReach : .unknown
            return
        }
        switch LoopHolders(of: Set(cycle.chainObjects), through: snapshots) {
        case .released(let since, let owner, let owned)?:
            self = .released(since: since, lastOwner: owner, lastOwned: owned)
        case .owned(let edge)? where holdsCancellable && snapshot.node(edge.from)?.kind != .cancellable:
            self = .owned(edge)
        case nil where holdsCancellable:
            self = .heldUnseen
        case .owned?, nil:
            self = .unknown
        }
    }

    /// Whether anything outside the loop and what it keeps can reach the loop: a reference
    /// (strong, weak or unowned) into it from an object it does not reach, or a path to it from
    /// an object it reaches that something else references too, or that the runtime counts a
    /// reference to the snapshot does not draw. A reference from what only the loop keeps (a
    /// subscriber the loop keeps that holds the loop's subject weakly) is the loop's own, not a
    /// way in.
    private static func isReachedFromOutside(_ loop: Set<TraceObjectID>, in graph: OwnershipGraph) -> Bool {
        let snapshot = graph.snapshot
        let live = { (id: TraceObjectID) in snapshot.node(id)?.alive == true }
        var region = loop
        var queue = Array(loop).sorted()
        while let current = queue.popLast() {
            for edge in snapshot.edges(from: current) where edge.ownership.isStrong && live(edge.to) {
                if region.insert(edge.to).inserted { queue.append(edge.to) }
            }
        }
        // The ways in: loop objects held from outside the region, and the region's other objects
        // held from outside it or by references the snapshot does not draw.
        var entered = region.filter { id in
            snapshot.holders(of: id).contains { live($0) && !region.contains($0) }
                || (!loop.contains(id) && graph.tallies(of: id)?.contains { $0.undrawn > 0 } != false)
        }
        if !entered.isDisjoint(with: loop) { return true }
        queue = Array(entered).sorted()
        while let current = queue.popLast() {
            for edge in snapshot.edges(from: current) where region.contains(edge.to) && entered.insert(edge.to).inserted {
                if loop.contains(edge.to) { return true }
                queue.append(edge.to)
            }
        }
        return false
    }

    /// Whether every object of `cycle` is of a type Combine's implementation declares, or the
    /// standard library's storage, with at least one of Combine's: whatever keeps such a loop,
    /// Combine's implementation does, not the program (OpenCombine's `Retry.Inner` keeps its
    /// upstream's subscription after it completed). Such loops are reported apart, as
    /// ``LibraryFinding``, never as the program's errors.
    static func isLibraryOwn(_ cycle: RetainCycle, in trace: Trace) -> Bool {
        let types = cycle.objects.map { trace.object($0)?.typeName ?? "" }
        let combine = { (type: String) in type.hasPrefix("OpenCombine.") || type.hasPrefix("Combine.") }
        return types.contains(where: combine) && types.allSatisfy { combine($0) || $0.hasPrefix("Swift.") }
    }
}
