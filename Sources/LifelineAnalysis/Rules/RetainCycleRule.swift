import LifelineLog

/// Finds loops of strong references that keep a subscription's objects alive: the
/// `retain-cycle` diagnosis, read from the log's ownership snapshots.
///
/// A strongly connected component of a snapshot's strong references that holds a subscriber,
/// a subscription, an `AnyCancellable` or a task suspended in a `for await` loop over a
/// publisher (``SuspendedTask``) gets a ``LoopVerdict``, taken from what the log
/// proves, never from what kinds of object the loop holds. It is reported when:
/// - the verdict proves its objects should be gone: their work was over (every hop of each of
///   them completed or cancelled, or still subscribed for a pipeline that was cancelled) yet
///   no owner outside holds the loop; what held it from outside let go of it; or nothing
///   outside a loop of Combine's objects references it at all;
/// - or an owner outside (or something the snapshot does not draw) still holds a loop through
///   the program's own objects that holds its own `AnyCancellable` (or the handle of its
///   suspended task): a warning that it leaks when that owner lets go.
///
/// A loop whose subscription a live `AnyCancellable` outside it can still cancel, a running
/// subscription an owner holds (a service's subject), or one the log proves nothing about, is
/// not reported. Nor is a loop that:
/// - the snapshot did not check every holder of (a per-call snapshot takes the objects
///   it did not check from earlier snapshots; see ``TraceSnapshot/lastChecked``);
/// - a later snapshot shows broken: one of its objects deallocated, or one of its holders
///   alive, checked by that snapshot, without its reference. A loop that the program cancels
///   on teardown is not reported as long as a snapshot after the teardown shows it gone. An object a later
///   snapshot does not show proves nothing: objects found only by heap inspection are absent
///   once nothing reaches them, not dead.
///
/// Each loop is reported once, from the latest snapshot where it exists, as the shortest
/// chain of references through its most telling object, in words:
/// `ViewModel.cancellables → Set<AnyCancellable> → AnyCancellable → Sink.receiveValue (closure) → ViewModel`.
/// The evidence is where the log shows the loop made: the subscribe call that attached each
/// subscriber on it and its return (where `sink` hands back the AnyCancellable that is then
/// stored), and the `receive(subscription:)` of each subscription on it; for a loop of objects
/// the log has no calls for, the snapshot's sequence number; and the completion or cancel that
/// ended its work. A proven leak is an error when the loop is still there in the log's last
/// snapshot, a warning when later snapshots do not show all of its objects.
///
/// The finding then says what held the loop from outside (``LoopHolders``): an owner that
/// still holds it, or since which snapshot only the loop and Combine's own objects held it,
/// with the runtime counting no other strong reference, the owner last seen holding it, and
/// the values the subscription still delivered after that. Nothing is said when the counts
/// show a reference the snapshot does not draw.
public struct RetainCycleRule: DiagnosisRule {
    public let code = "retain-cycle"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        let snapshots = lifecycles.trace.snapshots
        // The loops of each snapshot, found from what it changed (StrongCycleHistory): a log of
        // per-call snapshots costs what they change, not live objects × snapshots.
        var history = StrongCycleHistory()
        var latest: [[TraceSnapshot.Edge]: Int] = [:]
        for (position, snapshot) in snapshots.enumerated() {
            history.advance(to: snapshot)
            // A per-call snapshot checks a few objects (it says which): only the loops they are
            // on can have a chain it checked whole.
            let checked = snapshot.isComplete ? nil : snapshot.checkedIDs
            let candidates = checked.map { ids in
                Dictionary(ids.flatMap { history.cycles(containing: $0) }.map { ($0.chain, $0) }, uniquingKeysWith: { first, _ in first })
                    .values.filter { cycle in cycle.chain.allSatisfy { ids.contains($0.from) } }
            } ?? history.cycles.filter { Self.isChecked($0.chain, in: snapshot) }
            for cycle in candidates where Self.holdsCombineObject(cycle, in: snapshot, trace: lifecycles.trace) {
                latest[cycle.chain] = position
            }
        }
        // The findings come snapshot by snapshot: each snapshot's graph is built once (and shared
        // with the rules that explain objects from it), with its loops by chain, as a snapshot
        // may hold thousands of loops.
        var current: (position: Int, graph: OwnershipGraph, cycles: [[TraceSnapshot.Edge]: RetainCycle])?
        return latest.sorted { $0.value < $1.value || ($0.value == $1.value && $0.key.lexicographicallyPrecedes($1.key, by: Self.precedes)) }
            .compactMap { chain, position in
                let later = snapshots[(position + 1)...]
                guard !later.contains(where: { Self.showsBroken(chain, $0, lifecycles: lifecycles) }) else { return nil }
                if current?.position != position {
                    let graph = lifecycles.recentGraphs.graph(of: snapshots[position], in: lifecycles.trace)
                    current = (position, graph, Dictionary(graph.strongCycles.map { ($0.chain, $0) }, uniquingKeysWith: { first, _ in first }))
                }
                guard let (_, graph, cycles) = current, let cycle = cycles[chain],
                      !LoopVerdict.isLibraryOwn(cycle, in: lifecycles.trace)
                else { return nil }
                let verdict = LoopVerdict(of: cycle, in: graph, through: snapshots[...position], lifecycles: lifecycles)
                return diagnosis(cycle, in: graph, isLast: later.isEmpty, verdict: verdict, lifecycles: lifecycles)
            }
    }

    /// The finding on a loop: an error when its verdict proves a leak in the last snapshot, a
    /// warning when a later snapshot does not show all of it, or when an owner outside still
    /// holds a loop through the program's objects (it leaks when that owner lets go); `nil`
    /// when the loop's subscription can still be cancelled from outside, or nothing is proven.
    private func diagnosis(
        _ cycle: RetainCycle, in graph: OwnershipGraph, isLast: Bool, verdict: LoopVerdict, lifecycles: TraceLifecycles
    ) -> Diagnosis? {
        let snapshot = graph.snapshot
        let objects = cycle.chainObjects
        // A task on the loop suspended in a `for await` loop runs that loop's subscription: its
        // subscriber's subscribe call made it.
        let suspended = cycle.objects.compactMap { SuspendedTask($0, in: snapshot, trace: lifecycles.trace) }
        let made = Self.events(making: objects + suspended.map(\.subscriber), before: snapshot.seq, lifecycles: lifecycles)
        var holding: String
        var cited: [UInt64] = []
        switch verdict {
        case .ended(let endings):
            let ends = endings.map { "\(lifecycles.name($0.object)) \($0.phrase)" }
            holding = " Their work was over (\(ends.joined(separator: ", "))), yet the loop still held them and no owner outside "
                + "it did: nothing will break it now."
            cited = endings.map(\.seq)
        case .released(let since, let owner, let owned):
            (holding, cited) = Self.sentence(releasedSince: since, lastOwner: owner, lastOwned: owned, of: cycle, in: graph, lifecycles: lifecycles)
        case .outOfReach:
            holding = " Nothing outside the loop references them (the runtime counted no other reference), so nothing can "
                + "send to, complete or cancel the subscription any more."
        case .owned(let edge):
            holding = " \(graph.distinctName(of: edge.from)) still holds \(graph.distinctName(of: edge.to)) from outside the "
                + "loop (\(graph.words([edge]))), so the subscription is still in reach; when it lets go, the loop keeps them alive."
        case .heldUnseen:
            holding = " Something the snapshot does not draw (the stack, a global, a Task) still holds them, so the subscription "
                + "is still in reach; when it lets go, the loop keeps them alive."
        case .cancelInReach, .unknown:
            return nil
        }
        holding += suspended.map { waiting in
            " \(waiting.name(in: lifecycles, startingASentence: true)) is suspended in a `for await` loop over \(lifecycles.name(waiting.subscriber)): it runs "
                + "until that publisher completes or the task is cancelled through its handle, which only the loop holds."
        }.joined()
        // Without calls that made the loop, the first events of its objects; the last event
        // before the snapshot, which may be any pipeline's, only when it has none.
        let seen = Array(Set(objects.compactMap(lifecycles.firstSeen))).sorted()
        let evidence = (made.isEmpty ? (seen.isEmpty ? [snapshot.seq] : seen) : made) + cited
        let capture = cycle.chain.first { edge in
            edge.field.hasSuffix("(closure)") && [.root, .object].contains(graph.node(edge.to)?.kind)
        }
        let weakening = capture.map { edge in
            let captured = graph.distinctName(of: edge.to), holder = graph.distinctName(of: edge.from)
            guard let place = edge.closurePlace(in: lifecycles.trace), let line = place.fileAndLine else {
                return "capture \(captured) weakly in \(holder)'s closure (`[weak self]`)"
            }
            let function = place.shortFunction.map { "\($0), " } ?? ""
            return "capture \(captured) weakly (`[weak self]`) in the closure at \(line) (\(function)which \(holder) holds in "
                + "\(edge.field.replacingOccurrences(of: " (closure)", with: "")))"
        }
        let fix: String
        let isEnded: Bool
        if case .ended = verdict { isEnded = true } else { isEnded = false }
        if isEnded {
            fix = "Break the loop where the work ends: an operator's or a subscription's cancel() and completion must cancel "
                + "what it subscribed to and let go of (set to nil) its subscription and its subscriber"
                + (weakening.map { "; or \($0)." } ?? ".")
        } else if let task = suspended.first {
            fix = "Break the loop: cancel \(task.name(in: lifecycles)) on teardown (`task?.cancel()`, before the owner is released: "
                + "its `for await` loop ends when the task is cancelled), or " + (weakening.map { "\($0) and leave the loop once it is nil" }
                    ?? "make one of the references weak") + "."
        } else {
            fix = "Break the loop: " + (weakening ?? "make one of the references weak") + ", or cancel the subscription on "
                + "teardown (call cancel() on the AnyCancellable, or empty the set that stores it) before the owner is released."
        }
        return Diagnosis(
            code: code, severity: isLast && verdict.isStuck ? .error : .warning,
            objects: objects,
            evidence: Array(Set(evidence)).sorted(),
            message: "Retain cycle: \(graph.words(cycle.chain)). "
                + "These objects hold each other strongly (\(objects.map(lifecycles.name).joined(separator: ", "))), "
                + "so none of them can be deallocated\(isEnded ? "" : ", and the subscription keeps running,") until the loop is broken "
                + "(snapshot \(snapshot.index) \"\(snapshot.label)\", after event @\(snapshot.seq)"
                + (isLast ? ", the last snapshot)." : "; later snapshots do not show all of its objects, so whether it was broken is unknown).")
                + holding,
            fix: fix,
            leakTrace: LoopLeakTrace(cycle, in: graph, verdict: verdict, lifecycles: lifecycles).trace
        )
    }

    /// What held the loop from outside, in a sentence that starts with a space, and the value
    /// deliveries to the loop's subscribers after nothing but the loop and Combine's machinery
    /// held it (the first five), which prove the subscription ran on for nobody.
    private static func sentence(
        releasedSince since: TraceSnapshot, lastOwner owner: TraceSnapshot.Edge?, lastOwned owned: TraceSnapshot?,
        of cycle: RetainCycle, in graph: OwnershipGraph, lifecycles: TraceLifecycles
    ) -> (String, [UInt64]) {
        let alone = "only the loop and Combine's own objects held them (the runtime counted no other strong reference)"
        var sentence: String
        if let owner, let owned {
            let field = (lifecycles.trace.object(owner.from)?.shortTypeName).map { "\($0).\(owner.field)" } ?? owner.field
            sentence = " \(lifecycles.name(owner.from)) held \(lifecycles.name(owner.to)) (\(field)) until snapshot \(owned.index) "
                + "(after @\(owned.seq)), and no longer in snapshot \(since.index) (after @\(since.seq)): from then on \(alone)"
        } else if since.index == graph.snapshot.index {
            sentence = " In that snapshot \(alone)"
        } else {
            sentence = " From snapshot \(since.index) (after @\(since.seq)) on, \(alone)"
        }
        let deliveries = cycle.chainObjects.flatMap { object in
            lifecycles.lifecycles(ofSubscriber: object).flatMap(\.deliveries).map(\.begin)
        }.filter { $0 > since.seq && $0 <= graph.snapshot.seq }.sorted()
        if !deliveries.isEmpty {
            let count = deliveries.count == 1 ? "1 more value" : "\(deliveries.count) more values"
            let cited = deliveries.prefix(5).map { "@\($0)" }.joined(separator: ", ")
            sentence += ", yet the subscription delivered \(count) (\(cited)\(deliveries.count > 5 ? ", …" : ""))"
        }
        sentence += owner == nil
            ? ". Nothing in the program can cancel the subscription any more."
            : ". They outlived what owned them, and nothing in the program can cancel the subscription any more."
        return (sentence, Array(deliveries.prefix(5)))
    }

    /// Whether the loop holds an object of the program's own, outside Combine's machinery: a
    /// registered root, another user object (such as a view model captured by a closure), a
    /// closure's context, an `AnyCancellable` or a collection that is not a subject's own. An
    /// object the log's handshake shows as a subscriber or a subscription is Combine's, whatever
    /// kind a snapshot gave it: one taken on another thread while a hand-written subscriber was
    /// being subscribed can show it as a plain object.
    static func holdsProgramObject(_ cycle: RetainCycle, in snapshot: TraceSnapshot, lifecycles: TraceLifecycles) -> Bool {
        cycle.objects.contains { isProgramObject($0, in: snapshot, lifecycles: lifecycles) }
    }

    /// Whether `id` is one of the program's own objects in `snapshot` (see
    /// ``holdsProgramObject(_:in:lifecycles:)``).
    static func isProgramObject(_ id: TraceObjectID, in snapshot: TraceSnapshot, lifecycles: TraceLifecycles) -> Bool {
        guard let node = snapshot.node(id), lifecycles.lifecycleIDs(ofSubscriber: id).isEmpty,
              lifecycles.lifecycles(ofSubscription: id).isEmpty
        else { return false }
        switch node.kind {
        case .root, .global, .object, .closureContext, .task, .cancellable: return true
        case .collection: return !isCombineStorage(id, in: snapshot)
        case .publisher, .subscription, .subscriber, .subject: return false
        }
    }

    /// Whether the loop holds a subscriber, a subscription, an `AnyCancellable` or a `Task`
    /// suspended in a `for await` loop over a publisher (``SuspendedTask``): a loop of the
    /// program's objects alone is no business of this rule.
    static func holdsCombineObject(_ cycle: RetainCycle, in snapshot: TraceSnapshot, trace: Trace) -> Bool {
        cycle.objects.contains { id in
            [.subscriber, .subscription, .cancellable].contains(snapshot.node(id)?.kind) || SuspendedTask(id, in: snapshot, trace: trace) != nil
        }
    }

    /// Whether the snapshot checked every holder on `chain` itself: a per-call snapshot takes
    /// the objects it did not check from earlier snapshots, and a loop pieced together from
    /// references seen at different moments proves nothing.
    static func isChecked(_ chain: [TraceSnapshot.Edge], in snapshot: TraceSnapshot) -> Bool {
        snapshot.isComplete || chain.allSatisfy { snapshot.checked($0.from) }
    }

    /// Whether the collection `id` belongs to Combine's machinery: only subjects, publishers,
    /// subscriptions and subscribers hold it strongly, like a subject's set of conduits.
    static func isCombineStorage(_ id: TraceObjectID, in snapshot: TraceSnapshot) -> Bool {
        let machinery: Set<TraceSnapshot.Node.Kind> = [.subject, .publisher, .subscription, .subscriber]
        let holders = snapshot.holders(of: id).flatMap { holder in
            snapshot.edges(from: holder).filter { $0.to == id && $0.ownership.isStrong }.compactMap { _ in snapshot.node(holder)?.kind }
        }
        return !holders.isEmpty && holders.allSatisfy(machinery.contains)
    }

    /// Whether `snapshot` shows the loop `chain` broken: one of its objects dead (in the snapshot,
    /// or by a deallocation the log recorded before it), or one of its holders alive, its
    /// references read, without the loop's reference.
    ///
    /// An object the snapshot does not show is not dead: objects found only by heap inspection
    /// (a closure's context, a collection's storage) are absent once nothing the inspection
    /// starts from reaches them. So a loop whose closure a sink let go of is broken because the
    /// live sink no longer holds the closure, not because the closure is missing.
    private static func showsBroken(_ chain: [TraceSnapshot.Edge], _ snapshot: TraceSnapshot, lifecycles: TraceLifecycles) -> Bool {
        let died = chain.contains { edge in
            snapshot.node(edge.from)?.alive == false
                || lifecycles.deallocations[edge.from].map { $0.seq <= snapshot.seq } == true
        }
        if died { return true }
        return chain.contains { edge in
            guard let holder = snapshot.node(edge.from), holder.alive, !holder.opaque, snapshot.checked(edge.from) else { return false }
            return !snapshot.edges(from: edge.from).contains(edge)
        }
    }

    /// The events that made a loop's references, as far as the log shows them: for each
    /// subscriber on it, the subscribe call that attached it (its closures and captures were
    /// made with it) and that call's return (where `sink` hands back the AnyCancellable that
    /// is then stored); for each subscription on it, the `receive(subscription:)` that handed
    /// it over. Only the subscription running when the snapshot was taken counts.
    private static func events(making objects: [TraceObjectID], before seq: UInt64, lifecycles: TraceLifecycles) -> [UInt64] {
        var events = Set<UInt64>()
        for object in objects {
            let asSubscriber = lifecycles.lifecycleIDs(ofSubscriber: object).map(lifecycles.lifecycle)
                .last { ($0.subscribeCall ?? $0.subscriptionCall ?? .max) <= seq }
            if let lifecycle = asSubscriber {
                let first = lifecycle.subscribeCall ?? lifecycle.subscriptionCall
                events.formUnion([first, first.flatMap { lifecycles.calls.call(at: $0)?.end }].compactMap { $0 })
            }
            let asSubscription = lifecycles.lifecycles(ofSubscription: object).last { ($0.subscriptionCall ?? .max) <= seq }
            if let received = asSubscription?.subscriptionCall { events.insert(received) }
        }
        return events.filter { $0 <= seq }.sorted()
    }

    private static func precedes(_ lhs: TraceSnapshot.Edge, _ rhs: TraceSnapshot.Edge) -> Bool {
        (lhs.from, lhs.field, lhs.to) < (rhs.from, rhs.field, rhs.to)
    }
}

extension OwnershipGraph {
    /// The loops of this snapshot that `retain-cycle` would report from it alone: those that
    /// hold a subscriber, subscription or AnyCancellable, that the snapshot checked, that are
    /// not Combine's own, and whose ``LoopVerdict`` (read through the snapshots up to this one)
    /// proves a leak or names an owner whose release leaks them (see ``RetainCycleRule``).
    /// Whether a later snapshot shows them broken is the rule's business, across snapshots.
    ///
    /// - Parameter lifecycles: The lifecycles of the trace the snapshot belongs to.
    public func retainCycles(in lifecycles: TraceLifecycles) -> [RetainCycle] {
        let snapshots = lifecycles.trace.snapshots
        let position = snapshots.firstIndex { $0.index == snapshot.index && $0.seq == snapshot.seq } ?? snapshots.endIndex - 1
        let through = position >= 0 ? snapshots[...position] : snapshots[...]
        return strongCycles.filter { cycle in
            RetainCycleRule.holdsCombineObject(cycle, in: snapshot, trace: lifecycles.trace) && RetainCycleRule.isChecked(cycle.chain, in: snapshot)
                && !LoopVerdict.isLibraryOwn(cycle, in: lifecycles.trace)
                && LoopVerdict(of: cycle, in: self, through: through, lifecycles: lifecycles).isReported
        }
    }
}
