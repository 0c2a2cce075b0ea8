import LifelineLog

/// A leak that Combine's implementation causes, not the program: loops of Combine's own objects
/// (OpenCombine's or Combine's types, and the standard library's storage) that the stop
/// snapshot shows kept after their work was over (``LoopVerdict/ended(_:)``: every hop of each
/// of their objects had completed or been cancelled), grouped by their objects' types. A loop
/// of Combine's objects still running that nothing can reach any more is not one: a subject and
/// its conduit left running are the program's business, as the subscription's owner is.
///
/// OpenCombine's `Retry.Inner` and `Timeout.Inner`, for instance, keep each other after their
/// upstream completed. No change to the program's code breaks such a loop, so it is never one of
/// the program's findings: reports list these apart, once per cause with a count, as
/// LeakCanary lists its library leaks.
public struct LibraryLeak: Hashable, Sendable {
    /// The short type names of one such loop's objects, sorted: what the loops of this cause
    /// are made of.
    public let types: [String]
    /// How many loops of this cause the snapshot holds.
    public let count: Int
    /// The objects of the first of them, in the order of its chain of references.
    public let example: [TraceObjectID]
    /// The first loop's chain in words.
    public let chain: String
    /// Why the first loop is stuck, in words: `Retry.Inner #118 completed at @686, …`.
    public let reason: String
    /// The snapshot they were found in.
    public let snapshot: Int
    /// The same for every run of the same cause (see ``Diagnosis/fingerprint``).
    public let fingerprint: String

    /// The loops of Combine's own objects kept after their work in the log's last snapshot, when
    /// it is a complete one (the snapshot taken at stop), by cause, in the order of their types.
    public static func find(in lifecycles: TraceLifecycles) -> [LibraryLeak] {
        let trace = lifecycles.trace
        guard let snapshot = trace.snapshots.last, snapshot.isComplete else { return [] }
        let graph = lifecycles.recentGraphs.graph(of: snapshot, in: trace)
        var byCause: [[String]: [(RetainCycle, LoopVerdict)]] = [:]
        for cycle in graph.strongCycles where LoopVerdict.isLibraryOwn(cycle, in: trace) {
            let verdict = LoopVerdict(of: cycle, in: graph, through: trace.snapshots[...], lifecycles: lifecycles)
            guard case .ended = verdict else { continue }
            let types = cycle.objects.map { trace.object($0)?.shortTypeName ?? "object" }.sorted()
            byCause[types, default: []].append((cycle, verdict))
        }
        return byCause.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { types, loops in
            let (cycle, verdict) = loops[0]
            let places = Set(loops.flatMap { $0.0.objects.compactMap(lifecycles.place) }).sorted()
            return LibraryLeak(
                types: types, count: loops.count, example: cycle.chainObjects, chain: graph.words(cycle.chain),
                reason: reason(verdict, of: cycle, lifecycles: lifecycles), snapshot: snapshot.index,
                fingerprint: DiagnosisFingerprint.hash(["library-leak"] + types + places)
            )
        }
    }

    private static func reason(_ verdict: LoopVerdict, of cycle: RetainCycle, lifecycles: TraceLifecycles) -> String {
        guard case .ended(let endings) = verdict else { return "" }
        return endings.map { "\(lifecycles.name($0.object)) \($0.phrase)" }.joined(separator: ", ")
            + ", yet the loop still held them and nothing outside it did"
    }
}
