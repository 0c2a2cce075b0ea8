import LifelineLog

/// Finds what piles up as a scenario runs again and again: a screen opened and closed ten
/// times that leaves one more model, or one more running pipeline, each time.
///
/// The log holds the scenario's repetitions, each an ``ObservedScope`` followed by a complete
/// ownership snapshot taken before the next one began (`expectNoLifecycleGrowth` records them
/// so; a program can with `Lifeline.mark(_:)` and `Lifeline.snapshot(_:)`). Each snapshot is
/// counted:
/// - **pipelines by the place that made them** (their call site, else their label): those whose
///   last hop was still subscribed, with its subscriber (or, for a value-type subscriber, its
///   subscription) alive in the snapshot;
/// - **objects by type**: every object alive in the snapshot, but for closure contexts,
///   collections and globals (counted as the objects that hold them) and the objects of system
///   libraries such as queues and locks (counted as their holders).
///
/// A count grows when each of the last ``growingRepetitions`` repetitions or more left more
/// behind than the one before, none of them a warm-up. A count that levels off (a cache filled
/// once, a pool that stops at its size) is not growth; one repetition that leaves nothing more
/// ends a growth, so a log of too few repetitions finds nothing. Repetitions without a snapshot
/// after them can't be counted: then the rule finds nothing, and ``uncountedRepetitions(in:)``
/// says how many.
///
/// What grew is grouped by what holds what: a thing joins another's group when the references
/// that keep its first object left behind alive (its retain path from the last snapshot, or
/// the loop it hangs from) pass through an object the other left behind. So a model that leaks
/// with each run is one finding, with its pipelines and everything it holds, and two unrelated
/// leaks are two. Each finding is led by pipelines made at a place in the program, else by a
/// type the program defines, names the run from which the growth began and cites what held the
/// leader's first object left behind. It is an error; a group of Combine's own objects alone,
/// which a timer or a queue the inspection can't see may hold and let go later, is a warning.
public struct LifecycleGrowthRule: DiagnosisRule {
    public let code = "lifecycle-growth"
    /// How many repetitions in a row must each leave more behind than the one before for a
    /// count to grow: three, so that one late release or a cache filled once is not growth.
    public static let growingRepetitions = 3
    /// The repetitions of the scenario, in order.
    public let repetitions: [ObservedScope]
    /// How many repetitions, from the first, may leave things behind without growing (filling
    /// a cache, starting a service).
    public let warmUp: Int

    /// Creates the rule for the repetitions of one scenario.
    ///
    /// - Parameters:
    ///   - repetitions: The scenario's runs, in order (``ObservedScope/repetitions(in:beginMark:endMark:)``).
    ///   - warmUp: How many of the first runs are a warm-up; one by default.
    public init(repetitions: [ObservedScope], warmUp: Int = 1) {
        self.repetitions = repetitions
        self.warmUp = warmUp
    }

    /// How many of the repetitions have no complete snapshot after them, before the next one
    /// began (or the log ended): the rule can't count what they left.
    public func uncountedRepetitions(in trace: Trace) -> Int {
        snapshotsAfterRepetitions(in: trace).count { $0 == nil }
    }

    public func diagnose(_ lifecycles: TraceLifecycles) -> [Diagnosis] {
        let found = snapshotsAfterRepetitions(in: lifecycles.trace)
        let snapshots = found.compactMap { $0 }
        guard snapshots.count == found.count, snapshots.count > Self.growingRepetitions else { return [] }
        let graph = lifecycles.recentGraphs.graph(of: snapshots.last!, in: lifecycles.trace)
        let things = (growingPipelines(in: lifecycles, snapshots: snapshots) + growingTypes(in: lifecycles, snapshots: snapshots))
            .map { thing in
                var explained = thing
                explained.explanation = lifecycles.whyAlive(thing.representative, in: graph)
                return explained
            }
        return Self.groups(of: things).map { group in
            diagnosis(of: group, snapshots: snapshots, graph: graph, lifecycles: lifecycles)
        }
    }

    /// The first complete snapshot after each repetition's end and before the next one's
    /// beginning, `nil` where there is none.
    private func snapshotsAfterRepetitions(in trace: Trace) -> [TraceSnapshot?] {
        repetitions.indices.map { index in
            let next = index + 1 < repetitions.count ? repetitions[index + 1].begin : .max
            return trace.snapshots.first { snapshot in
                snapshot.isComplete && snapshot.seq >= repetitions[index].end && snapshot.seq < next
            }
        }
    }

    // MARK: Counting

    /// The pipelines of each place that grew: those whose last hop was still subscribed, with
    /// its subscriber alive, after each run.
    private func growingPipelines(in lifecycles: TraceLifecycles, snapshots: [TraceSnapshot]) -> [GrowingThing] {
        var places: [String] = []
        var byPlace: [String: (name: String, placed: Bool, pipelines: [Pipeline])] = [:]
        for (key, pipeline) in PipelineKey.keys(of: TracePipelines(lifecycles), in: lifecycles) {
            if byPlace[key.place] == nil {
                places.append(key.place)
                let phrase = pipeline.sourceLocation != nil ? "made at" : pipeline.label != nil ? "labelled" : "ending in a"
                byPlace[key.place] = ("pipelines \(phrase) \(key.place)", pipeline.sourceLocation != nil, [])
            }
            byPlace[key.place]!.pipelines.append(pipeline)
        }
        return places.compactMap { place in
            let (name, placed, pipelines) = byPlace[place]!
            let live = snapshots.map { snapshot in
                pipelines.filter { isLive(lifecycles.lifecycle($0.end), in: snapshot, lifecycles: lifecycles) }
            }
            let series = GrowthSeries(counts: live.map(\.count))
            guard let start = series.growthStart(warmUp: warmUp) else { return nil }
            let since = snapshots[start - 1].seq
            let left = live.last!.filter { (lifecycles.lifecycle($0.end).subscribeCall ?? 0) > since }
            guard let first = left.first.map({ lifecycles.lifecycle($0.end) }) else { return nil }
            return GrowingThing(
                name: name, counted: "still subscribed", series: series, start: start, representative: first.subscriber,
                leftBehind: Set(left.flatMap(\.objects)),
                evidence: Array(left.compactMap { lifecycles.lifecycle($0.end).subscribeCall }.prefix(5)),
                hop: first.hop, isPlacedPipelines: placed, isProgramType: false
            )
        }
    }

    /// Whether the pipeline that ends with `end` was running when `snapshot` was taken: still
    /// subscribed, and its subscriber alive (its subscription, for a subscriber without a
    /// lifetime of its own).
    private func isLive(_ end: Lifecycle, in snapshot: TraceSnapshot, lifecycles: TraceLifecycles) -> Bool {
        guard end.state(before: snapshot.seq + 1) == .subscribed else { return false }
        let tracked = [end.subscriber, end.subscription].compactMap { $0 }.first { lifecycles.trace.object($0)?.lifetimeTracked == true }
        return tracked.map { snapshot.node($0)?.alive == true } ?? true
    }

    /// The kinds of node not counted by type: the boxes that hold references, counted as the
    /// objects that hold them.
    private static let uncountedKinds: Set<TraceSnapshot.Node.Kind> = [.closureContext, .collection, .global]

    /// The types whose objects grew: every object alive after each run, but for the boxes that
    /// hold references and the objects of system libraries (a queue, a lock), which their
    /// holders account for.
    private func growingTypes(in lifecycles: TraceLifecycles, snapshots: [TraceSnapshot]) -> [GrowingThing] {
        let trace = lifecycles.trace
        var places: [TraceObjectID: String?] = [:]
        let alive = snapshots.map { snapshot in
            Dictionary(grouping: snapshot.nodes.filter { $0.alive && !$0.opaque && !Self.uncountedKinds.contains($0.kind) }) { node in
                let place = places[node.id] ?? lifecycles.place(of: node.id)
                places[node.id] = place
                return TypeAndPlace(typeName: trace.object(node.id)?.typeName ?? TraceObject.unknownTypeName, place: place)
            }.filter { $0.key.typeName != TraceObject.unknownTypeName }
        }
        return Set(alive.flatMap(\.keys)).sorted().compactMap { key in
            let series = GrowthSeries(counts: alive.map { $0[key]?.count ?? 0 })
            guard let start = series.growthStart(warmUp: warmUp) else { return nil }
            let before = Set((alive[start - 1][key] ?? []).map(\.id))
            let left = (alive.last![key] ?? []).filter { !before.contains($0.id) }
            guard let first = left.map(\.id).min(), let declared = trace.object(first) else { return nil }
            return GrowingThing(
                name: "\(declared.shortTypeName) objects" + (key.place.map { " made at \($0)" } ?? ""), counted: "alive",
                series: series, start: start, representative: first, leftBehind: Set(left.map(\.id)),
                evidence: snapshots[(start - 1)...].prefix(4).map(\.seq), hop: nil, isPlacedPipelines: false,
                isProgramType: left.first?.kind == .object && lifecycles.lifecycleIDs(ofSubscriber: first).isEmpty
                    && lifecycles.lifecycles(ofSubscription: first).isEmpty
            )
        }
    }

    /// What objects are counted by: their type, and the place in the program that made the
    /// pipeline they belong to, when known.
    private struct TypeAndPlace: Hashable, Comparable {
        let typeName: String
        let place: String?

        static func < (lhs: TypeAndPlace, rhs: TypeAndPlace) -> Bool {
            (lhs.typeName, lhs.place ?? "") < (rhs.typeName, rhs.place ?? "")
        }
    }

    // MARK: Grouping

    /// The growing things in groups of those that hold each other: one thing joins another's
    /// group when the references that keep its first object alive (its retain path, or the
    /// loop it hangs from) pass through an object the other left behind. A screen's model that
    /// leaks makes one group of itself, its pipelines and everything it holds; two unrelated
    /// leaks make two. Groups are in the order of their first thing.
    private static func groups(of things: [GrowingThing]) -> [[GrowingThing]] {
        var group = Array(things.indices)
        func root(_ index: Int) -> Int {
            var index = index
            while group[index] != index { index = group[index] }
            return index
        }
        for (index, thing) in things.enumerated() {
            let holders = thing.holders
            for (other, held) in things.enumerated() where other != index && !holders.isDisjoint(with: held.leftBehind) {
                let (a, b) = (root(index), root(other))
                group[max(a, b)] = min(a, b)
            }
        }
        return Dictionary(grouping: things.indices, by: root).sorted { $0.key < $1.key }.map { $0.value.map { things[$0] } }
    }

    // MARK: Findings

    /// One finding for a group: led by its pipelines made at a place in the program, else by
    /// a type the program defines, citing what held the leader's first object left behind.
    private func diagnosis(
        of group: [GrowingThing], snapshots: [TraceSnapshot], graph: OwnershipGraph, lifecycles: TraceLifecycles
    ) -> Diagnosis {
        // Led by the pipelines made at a place, then the program's types, then the rest; at
        // each rank, first what no other pipelines made at a place, nor objects of the program's
        // types, hold.
        let heldByGroup = group.map { thing in
            let holders = thing.holders
            return group.contains { other in
                (other.isPlacedPipelines || other.isProgramType) && other.name != thing.name
                    && !holders.isDisjoint(with: other.leftBehind)
            }
        }
        let ordered = group.indices.sorted { a, b in
            let rank = { (index: Int) in (group[index].isPlacedPipelines ? 0 : group[index].isProgramType ? 2 : 4) + (heldByGroup[index] ? 1 : 0) }
            return (rank(a), a) < (rank(b), b)
        }.map { group[$0] }
        let leader = ordered[0]
        let start = group.map(\.start).min()!
        let last = snapshots.last!
        let held: TraceLifecycles.Retention = (last, graph, leader.explanation)
        let shown = ordered.prefix(6).map { $0.phrase(groupStart: start) }
        let more = ordered.count > 6 ? ", and \(ordered.count - 6) more types" : ""
        let runEnd = repetitions.first { $0.contains(leader.evidence.first ?? 0) }?.end ?? snapshots[start - 1].seq
        // Combine's own objects, which hold each other and no program object, are a warning: what
        // keeps them may be a timer or a queue the inspection can't see, which lets them go later.
        let programs = leader.isPlacedPipelines || leader.isProgramType
        return Diagnosis(
            code: code, severity: programs ? .error : .warning,
            objects: [leader.representative],
            // A type's evidence is the runs' snapshots, which may end with the last.
            evidence: leader.evidence.last == last.seq ? leader.evidence : leader.evidence + [last.seq],
            message: "Each run of the scenario left more behind than the run before, from run \(start + 1) of "
                + "\(snapshots.count) on: \(shown.joined(separator: "; "))\(more)."
                + lifecycles.retainSentence(for: leader.representative, held: held),
            fix: "Make each run end what it starts: cancel its pipelines (or release their AnyCancellables) when what made "
                + "them goes away, and break the reference that keeps the first object above alive: a [weak self] capture "
                + "in a sink or Task closure, or cancelling or removing it when the run ends.",
            hop: leader.hop,
            leakTrace: leader.hop == nil ? nil : ScopeLeakTrace(
                of: leader.representative, held: held.explanation, in: graph, scopeEnd: runEnd, lifecycles: lifecycles
            )?.trace
        )
    }
}
