import LifelineLog

/// Two recordings of the same program compared: which findings are new, resolved or unchanged,
/// how each pipeline's lifecycle changed, and which objects were alive at stop in each.
///
/// Nothing is compared by id or sequence number, which differ from run to run. Findings are
/// matched by fingerprint (``Diagnosis/fingerprint``), as many times as each run has one;
/// pipelines by where the program made them (``PipelineKey``): the call site of their end, or
/// their `.lifeline` label, and their order among the pipelines made there.
///
/// ```swift
/// let comparison = TraceComparison(base: TraceLifecycles(before), new: TraceLifecycles(after))
/// print(comparison.newFindings.map(\.message))
/// ```
public struct TraceComparison: Sendable {
    /// One recording, with what the comparison read from it.
    public struct Side: Sendable {
        /// The recording's lifecycles.
        public let lifecycles: TraceLifecycles
        /// Its findings, in ``TraceAnalyzer`` order.
        public let diagnoses: [Diagnosis]
        /// Its pipelines.
        public let pipelines: TracePipelines
        /// Its pipelines with their keys, in their order.
        let keyed: [(key: PipelineKey, pipeline: Pipeline)]
        /// Its pipelines by key.
        let pipelinesByKey: [PipelineKey: Pipeline]
        /// The key of each of its pipelines.
        let keyOfPipeline: [Pipeline.ID: PipelineKey]
        /// How many objects of each short type name were alive in the snapshot taken at stop;
        /// `nil` without one.
        let aliveAtStop: [String: Int]?

        init(_ lifecycles: TraceLifecycles, analyzer: TraceAnalyzer) {
            self.lifecycles = lifecycles
            diagnoses = analyzer.diagnose(lifecycles)
            pipelines = TracePipelines(lifecycles)
            keyed = PipelineKey.keys(of: pipelines, in: lifecycles)
            pipelinesByKey = Dictionary(keyed.map { ($0.key, $0.pipeline) }, uniquingKeysWith: { first, _ in first })
            keyOfPipeline = Dictionary(keyed.map { ($0.pipeline.id, $0.key) }, uniquingKeysWith: { first, _ in first })
            if let stop = lifecycles.trace.snapshots.last, stop.reason == .stop {
                var counts: [String: Int] = [:]
                for node in stop.nodes where node.alive && node.kind != .global {
                    counts[lifecycles.trace.object(node.id)?.shortTypeName ?? "unknown", default: 0] += 1
                }
                aliveAtStop = counts
            } else {
                aliveAtStop = nil
            }
        }
    }

    /// A pipeline found in both recordings whose lifecycle differs.
    public struct PipelineChange: Hashable, Sendable {
        /// Where the program made it.
        public let key: PipelineKey
        /// The pipeline in the base recording, and in the new one.
        public let base: Pipeline, new: Pipeline
    }

    /// A type whose objects alive at stop differ in number.
    public struct AliveChange: Hashable, Sendable {
        /// The short type name: `Sink`, `SearchModel`.
        public let typeName: String
        /// How many were alive at stop in the base recording, and in the new one.
        public let base: Int, new: Int
    }

    /// The earlier recording.
    public let base: Side
    /// The recording to judge against it.
    public let new: Side
    /// The findings of ``new`` whose fingerprint ``base`` lacks (or has fewer times).
    public let newFindings: [Diagnosis]
    /// The findings of ``base`` whose fingerprint ``new`` lacks (or has fewer times).
    public let resolvedFindings: [Diagnosis]
    /// The findings of ``new`` that ``base`` has too.
    public let unchangedFindings: [Diagnosis]
    /// The pipelines found in both whose state, values or hops differ, in the new recording's order.
    public let changedPipelines: [PipelineChange]
    /// How many pipelines are found in both and did not change.
    public let unchangedPipelineCount: Int
    /// The pipelines only the base recording made, and those only the new one made, each in
    /// its recording's order.
    public let removedPipelines: [Pipeline], addedPipelines: [Pipeline]
    /// The types whose objects alive at stop differ in number, by name; empty when either
    /// recording has no stop snapshot.
    public let aliveChanges: [AliveChange]

    /// Compares `new` with `base`, diagnosing both with `analyzer`.
    public init(base: TraceLifecycles, new: TraceLifecycles, analyzer: TraceAnalyzer = TraceAnalyzer()) {
        // The two sides are diagnosed at once: each takes about what a `diagnose` does.
        let (base, new) = BothAtOnce.run({ Side(base, analyzer: analyzer) }, { Side(new, analyzer: analyzer) })
        self.base = base
        self.new = new

        var remaining: [String: Int] = [:]
        for diagnosis in base.diagnoses { remaining[diagnosis.fingerprint, default: 0] += 1 }
        var newFindings: [Diagnosis] = [], unchanged: [Diagnosis] = []
        for diagnosis in new.diagnoses {
            if let count = remaining[diagnosis.fingerprint], count > 0 {
                remaining[diagnosis.fingerprint] = count - 1
                unchanged.append(diagnosis)
            } else {
                newFindings.append(diagnosis)
            }
        }
        var resolved: [Diagnosis] = []
        for diagnosis in base.diagnoses.reversed() {
            guard let count = remaining[diagnosis.fingerprint], count > 0 else { continue }
            remaining[diagnosis.fingerprint] = count - 1
            resolved.insert(diagnosis, at: 0)
        }
        self.newFindings = newFindings
        resolvedFindings = resolved
        unchangedFindings = unchanged

        let before = base.pipelinesByKey
        let keyed = new.keyed
        let matched = Set(keyed.map(\.key)).intersection(before.keys)
        changedPipelines = keyed.compactMap { entry in
            guard let old = before[entry.key], Self.differs(old, entry.pipeline) else { return nil }
            return PipelineChange(key: entry.key, base: old, new: entry.pipeline)
        }
        unchangedPipelineCount = matched.count - changedPipelines.count
        let matchedBase = Set(matched.compactMap { before[$0]?.id })
        removedPipelines = base.pipelines.pipelines.filter { !matchedBase.contains($0.id) }
        let matchedNew = Set(keyed.filter { matched.contains($0.key) }.map(\.pipeline.id))
        addedPipelines = new.pipelines.pipelines.filter { !matchedNew.contains($0.id) }

        if let old = base.aliveAtStop, let now = new.aliveAtStop {
            aliveChanges = Set(old.keys).union(now.keys).sorted().compactMap { type in
                let (was, is_) = (old[type] ?? 0, now[type] ?? 0)
                return was == is_ ? nil : AliveChange(typeName: type, base: was, new: is_)
            }
        } else {
            aliveChanges = []
        }
    }

    /// Whether the two recordings differ in findings or pipelines.
    public var hasDifferences: Bool {
        !newFindings.isEmpty || !resolvedFindings.isEmpty || !changedPipelines.isEmpty || !removedPipelines.isEmpty
            || !addedPipelines.isEmpty || !aliveChanges.isEmpty
    }

    /// The pipeline of the new recording made where the base recording's pipeline that
    /// `diagnosis` cites was made: where a resolved finding's objects went.
    public func newPipeline(for diagnosis: Diagnosis) -> Pipeline? {
        base.pipelines.pipelines(citedBy: diagnosis).lazy.compactMap { base.keyOfPipeline[$0] }.compactMap { new.pipelinesByKey[$0] }.first
    }

    private static func differs(_ lhs: Pipeline, _ rhs: Pipeline) -> Bool {
        lhs.state != rhs.state || lhs.values != rhs.values || lhs.lifecycles.count != rhs.lifecycles.count
    }
}
