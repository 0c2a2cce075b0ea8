import LifelineLog

/// Finds, in a start/stop recording with ownership snapshots, pipeline objects that outlived
/// their work: a subscriber, its subscription or the AnyCancellable that wraps it, still alive
/// in the snapshot taken at stop although the subscription had completed or been cancelled,
/// and kept alive by a loop whose ``LoopVerdict`` proves it stuck, or by its publisher.
///
/// The rule only says what the graph proves:
/// - It needs the snapshot taken at stop; without one it reports nothing.
/// - An object a registered root reaches is owned, and not reported: an AnyCancellable that a
///   live owner still keeps after its publisher finished is normal.
/// - An object nothing in the graph holds is not reported, whatever the program tracked: the
///   stack, a global, a cache outside the graph or a `Task` may hold it on purpose, and that
///   nothing the program registered with `Lifeline.track` reaches it proves nothing.
/// - One held by a loop the log proves stuck (``LoopVerdict``: its work over, its owner gone,
///   or out of reach), which cannot be freed, is an error. A loop whose subscription something
///   outside can still end (a subject and the conduit of a subscription still running, a live
///   AnyCancellable outside it) is no leak of the finished one.
/// - Every hop of the subscriber must have ended: one that rejected a second subscription by
///   cancelling it may still run its first.
/// - Subscriptions a publisher still holds after they were cancelled or completed
///   (``PublisherKeptSubscriptions``) are an error whatever holds the publisher: one diagnosis
///   per publisher and field, with their count.
///
/// One diagnosis is otherwise issued per subscription, naming each of its objects that leaked
/// once, except that the ended subscriptions one loop keeps are one leak and get one diagnosis
/// together.
public struct LeakedAtStopRule: DiagnosisRule {
    public let code = "leaked-subscription"

    /// Creates the rule.
    public init() {}

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        guard let snapshot = lifecycles.trace.snapshots.last, snapshot.reason == .stop else { return [] }
        let graph = lifecycles.recentGraphs.graph(of: snapshot, in: lifecycles.trace)
        var verdicts: [[TraceSnapshot.Edge]: Bool] = [:]
        func isStuck(_ cycle: RetainCycle) -> Bool {
            if let known = verdicts[cycle.chain] { return known }
            let stuck = !LoopVerdict.isLibraryOwn(cycle, in: lifecycles.trace)
                && LoopVerdict(of: cycle, in: graph, through: lifecycles.trace.snapshots[...], lifecycles: lifecycles).isStuck
            verdicts[cycle.chain] = stuck
            return stuck
        }
        // The AnyCancellables that hold each subscriber strongly, in the snapshot's order.
        var wrappersOf: [TraceObjectID: [TraceObjectID]] = [:]
        for edge in snapshot.edges where edge.ownership.isStrong && snapshot.node(edge.from)?.kind == .cancellable {
            wrappersOf[edge.to, default: []].append(edge.from)
        }
        let kept = PublisherKeptSubscriptions(in: snapshot, lifecycles: lifecycles).groups
        var reported = Set(kept.flatMap { $0.endings.map(\.object) })
        var leaks: [Leak] = []
        for lifecycle in lifecycles.lifecycles {
            // Every hop of the subscriber must have ended: a second subscription it rejected by
            // cancelling it ends nothing of the first, which may still run.
            guard let end = lifecycle.end,
                  lifecycles.lifecycleIDs(ofSubscriber: lifecycle.subscriber).last == lifecycle.id,
                  HopEnding(of: lifecycle.subscriber, before: snapshot.seq, in: lifecycles) != nil
            else { continue }
            let wrappers = wrappersOf[lifecycle.subscriber, default: []]
            let candidates = [lifecycle.subscriber] + (lifecycle.subscription.map { [$0] } ?? []) + wrappers
            // Only what a loop the log proves stuck holds: a loop whose subscription something
            // outside can still end, or that the log proves nothing about, and an object held
            // from outside the graph, are no proven leak (`retain-cycle` and `why` say what
            // they can).
            var leaked: [(object: TraceObjectID, explanation: AliveExplanation, loop: RetainCycle)] = []
            for object in candidates where !reported.contains(object) {
                let explanation = graph.whyAlive(object)
                if case .heldByCycle(let cycle, _) = explanation, isStuck(cycle) { leaked.append((object, explanation, cycle)) }
            }
            guard let first = leaked.first else { continue }
            for (object, _, _) in leaked { reported.insert(object) }
            leaks.append(Leak(
                lifecycle: lifecycle, end: end, objects: leaked.map(\.object), explanation: first.explanation, loop: first.loop
            ))
        }
        // The finished subscriptions one stuck loop keeps are one leak: one finding.
        var byLoop: [[TraceSnapshot.Edge]: Int] = [:]
        var groups: [[Leak]] = []
        for leak in leaks {
            if let index = byLoop[leak.loop.chain] {
                groups[index].append(leak)
            } else {
                byLoop[leak.loop.chain] = groups.count
                groups.append([leak])
            }
        }
        return kept.map { diagnosis($0, in: graph, lifecycles: lifecycles) }
            + groups.map { diagnosis($0, in: graph, lifecycles: lifecycles) }
    }

    /// The objects one ended subscription left alive, held by a stuck loop.
    private struct Leak {
        let lifecycle: Lifecycle
        /// The completion or cancel that ended it.
        let end: UInt64
        let objects: [TraceObjectID]
        /// Why the first of them was alive, and the loop that held it.
        let explanation: AliveExplanation
        let loop: RetainCycle

        var completed: Bool { lifecycle.completions.first?.seq == end }
    }

    /// The finding on the objects that ended subscriptions left alive, held by one stuck loop.
    private func diagnosis(_ group: [Leak], in graph: OwnershipGraph, lifecycles: TraceLifecycles) -> Diagnosis {
        let snapshot = graph.snapshot
        let objects = group.flatMap(\.objects)
        let because = graph.sentence(explaining: group[0].explanation, subject: lifecycles.name(group[0].objects[0]))
        let alive = "\(objects.map(lifecycles.name).joined(separator: ", ")) \(objects.count == 1 ? "was" : "were") still alive when "
            + "recording stopped although"
        let ended = group.count == 1
            ? "the subscription \(group[0].completed ? "completed" : "was cancelled") at @\(group[0].end)"
            : "their subscriptions had ended (" + group.map { "\($0.completed ? "completed" : "cancelled") at @\($0.end)" }
                .joined(separator: ", ") + ")"
        return Diagnosis(
            code: code, severity: .error,
            objects: objects,
            evidence: Array(Set(group.map(\.end))).sorted(),
            message: "\(alive) \(ended): in snapshot \(snapshot.index) \"\(snapshot.label)\", \(because).",
            fix: "Break the loop: capture the owner weakly in sink and assign closures (`[weak self]`), or release "
                + "the AnyCancellable (set it to nil, or empty the set that stores it) once the work has ended.",
            hop: group[0].lifecycle.hop
        )
    }

    /// The finding on subscriptions a publisher kept after they ended.
    private func diagnosis(_ group: PublisherKeptSubscriptions.Group, in graph: OwnershipGraph, lifecycles: TraceLifecycles) -> Diagnosis {
        let snapshot = graph.snapshot
        let endings = group.endings
        let count = endings.count == 1 ? "a subscription" : "\(endings.count) subscriptions"
        let names = endings.prefix(3).map { "\(lifecycles.name($0.object)) \($0.phrase)" }.joined(separator: ", ")
            + (endings.count > 3 ? ", …" : "")
        let cited = Array(endings.map(\.seq).sorted().prefix(5))
        return Diagnosis(
            code: code, severity: .error,
            objects: endings.map(\.object),
            evidence: cited,
            message: "\(lifecycles.name(group.publisher)) still held \(count) after \(endings.count == 1 ? "it" : "they") ended "
                + "(\(names)): in snapshot \(snapshot.index) \"\(snapshot.label)\", \(graph.words(group.path)) keeps "
                + "\(endings.count == 1 ? "it" : "them") alive, each with what it holds (its subscriber). The publisher will keep "
                + "every subscription it hands out for as long as it lives.",
            fix: "Let go of a subscription when it ends: remove it from the publisher's storage in its cancel() and when it "
                + "sends a completion, as PassthroughSubject does with its conduits.",
            hop: nil,
            leakTrace: LeakTrace(
                steps: group.path.enumerated().map { position, edge in
                    LeakTrace.Step(
                        object: edge.from, verdict: .expected,
                        reason: position == 0 ? "alive: it may still send" : "the publisher's storage",
                        reference: LoopLeakTrace.reference(edge, in: lifecycles.trace), isSuspect: position == group.path.count - 1
                    )
                } + [LeakTrace.Step(object: endings[0].object, verdict: .stuck, reason: endings[0].phrase, reference: nil, isSuspect: false)],
                loopStart: nil
            )
        )
    }
}
