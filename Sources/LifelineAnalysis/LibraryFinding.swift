import LifelineLog

/// A problem that Combine's implementation causes, not the program, listed apart from the
/// program's findings once per cause with a count, as LeakCanary lists its library leaks. No
/// change to the program's code removes it, so it is never one of the program's findings and
/// counts toward no exit status.
///
/// Two kinds are found:
/// - **Leaks** (`library-leak`): loops of Combine's own objects (OpenCombine's or Combine's
///   types, and the standard library's storage) that the stop snapshot shows kept after their
///   work was over (``LoopVerdict/ended(_:)``: every hop of each of their objects had completed
///   or been cancelled), grouped by their objects' types. OpenCombine's `Retry.Inner` and
///   `Timeout.Inner` keep each other after their upstream completed. A loop of Combine's objects
///   still running that nothing can reach any more is not one: a subject and its conduit left
///   running are the program's business, as the subscription's owner is.
/// - **Races** (`library-race`): a subscription of Combine's own implementation (its `Future`,
///   a subject) whose result reached its subscriber on one thread while the
///   `receive(subscription:)` that handed it over still ran on another: OpenCombine hands a
///   subscription over outside its lock. Grouped by the subscription's type and the place in
///   the program that subscribed it.
public struct LibraryFinding: Hashable, Sendable {
    /// `library-leak` or `library-race`.
    public let code: String
    /// The short type names of one occurrence's objects, sorted: what this cause is made of.
    public let types: [String]
    /// How many times the log shows this cause.
    public let count: Int
    /// The objects of the first occurrence, most telling first.
    public let example: [TraceObjectID]
    /// The first occurrence in words: a loop's chain of references, or the overlapping calls.
    public let summary: String
    /// Why the first occurrence is one, in words, citing its events.
    public let reason: String
    /// The events of the first occurrence that prove it.
    public let evidence: [UInt64]
    /// The same for every run of the same cause (see ``Diagnosis/fingerprint``).
    public let fingerprint: String

    /// Every problem of Combine's own implementation the log shows, leaks first, each kind by
    /// cause in the order of its types.
    public static func find(in lifecycles: TraceLifecycles) -> [LibraryFinding] {
        leaks(in: lifecycles) + races(in: lifecycles)
    }

    /// The loops of Combine's own objects kept after their work in the log's last snapshot,
    /// when it is a complete one (the snapshot taken at stop).
    private static func leaks(in lifecycles: TraceLifecycles) -> [LibraryFinding] {
        let trace = lifecycles.trace
        guard let snapshot = trace.snapshots.last, snapshot.isComplete else { return [] }
        let graph = lifecycles.recentGraphs.graph(of: snapshot, in: trace)
        var byCause: [[String]: [(cycle: RetainCycle, endings: [HopEnding])]] = [:]
        for cycle in graph.strongCycles where LoopVerdict.isLibraryOwn(cycle, in: trace) {
            guard case .ended(let endings) = LoopVerdict(of: cycle, in: graph, through: trace.snapshots[...], lifecycles: lifecycles)
            else { continue }
            let types = cycle.objects.map { trace.object($0)?.shortTypeName ?? "object" }.sorted()
            byCause[types, default: []].append((cycle, endings))
        }
        return byCause.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { types, loops in
            let (cycle, endings) = loops[0]
            let places = Set(loops.flatMap { $0.cycle.objects.compactMap(lifecycles.place) }).sorted()
            return LibraryFinding(
                code: "library-leak", types: types, count: loops.count, example: cycle.chainObjects,
                summary: graph.words(cycle.chain) + " (snapshot \(snapshot.index))",
                reason: endings.map { "\(lifecycles.name($0.object)) \($0.phrase)" }.joined(separator: ", ")
                    + ", yet the loop still held them and nothing outside it did",
                evidence: endings.map(\.seq).sorted() + [snapshot.seq],
                fingerprint: DiagnosisFingerprint.hash(["library-leak"] + types + places)
            )
        }
    }

    /// The results of Combine's own subscriptions that overtook the handshake handing them over.
    private static func races(in lifecycles: TraceLifecycles) -> [LibraryFinding] {
        let trace = lifecycles.trace
        var byCause: [[String]: [(overlap: ConcurrentDeliveryRule.Overlap, subscription: TraceObjectID)]] = [:]
        for overlap in ConcurrentDeliveryRule.overlaps(in: lifecycles) where overlap.isCombinesOwnHandOver(in: lifecycles) {
            guard let subscription = overlap.overtakingSubscription(in: lifecycles) else { continue }
            let cause = [trace.object(subscription)?.shortTypeName ?? "object", lifecycles.place(of: subscription) ?? ""]
            byCause[cause, default: []].append((overlap, subscription))
        }
        return byCause.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { cause, races in
            let (overlap, subscription) = races[0]
            let (first, second) = (overlap.first, overlap.second)
            return LibraryFinding(
                code: "library-race", types: [cause[0]], count: races.count, example: [overlap.subscriber, subscription],
                summary: "the result of \(lifecycles.name(subscription)) overtook the handshake that handed it over",
                reason: "\(lifecycles.name(overlap.subscriber)) was in receive(subscription:) on "
                    + "\(trace.executionContextName(of: first)) from @\(first.seq) to @\(overlap.firstEnd) when a result began "
                    + "on \(trace.executionContextName(of: second)) at @\(second.seq): \(cause[0]) hands a subscription over "
                    + "outside its lock",
                evidence: [first.seq, second.seq, overlap.firstEnd].sorted(),
                fingerprint: DiagnosisFingerprint.hash(["library-race"] + cause)
            )
        }
    }
}
