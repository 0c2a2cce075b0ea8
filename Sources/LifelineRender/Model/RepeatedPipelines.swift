import LifelineAnalysis
import LifelineLog

/// Pipelines that repeat one another: made at the same call site (or with the same label, or
/// ending in the same subscriber type) and with the same shape (the same calls between
/// objects of the same types, in the same order). A log of 83,000 short-lived pipelines
/// draws the first of each kind, and a fold row `× 82,999 pipelines like this` for the rest.
///
/// A kind needs ``SequenceModel/shortestFoldedRun`` pipelines to be grouped, and a pipeline
/// a finding cites is always drawn.
struct RepeatedPipelines {
    /// One group: the pipeline drawn, and how many more like it were left out.
    struct Group {
        /// The last event of the pipeline drawn: the fold row goes after it.
        let after: UInt64
        /// How many pipelines were left out.
        let count: Int
        /// The first and last sequence numbers left out.
        let seqs: ClosedRange<UInt64>
        /// The objects of the pipeline drawn, whose lanes the fold row spans.
        let objects: [TraceObjectID]
    }

    /// The trace without the left-out pipelines' events.
    let trace: Trace
    /// The groups, by the pipeline drawn.
    let groups: [Group]

    init(_ trace: Trace, diagnoses: [Diagnosis]) {
        let lifecycles = TraceLifecycles(trace)
        let pipelines = TracePipelines(lifecycles).pipelines
        guard pipelines.count >= SequenceModel.shortestFoldedRun else {
            self.trace = trace
            groups = []
            return
        }
        let cited = Set(diagnoses.flatMap(\.evidence)), citedObjects = Set(diagnoses.flatMap(\.objects))
        var kinds: [[String]: [Int]] = [:]
        var kindOrder: [[String]] = []
        for (index, pipeline) in pipelines.enumerated() {
            if pipeline.events.contains(where: cited.contains) || pipeline.objects.contains(where: citedObjects.contains) { continue }
            let key = Self.kind(of: pipeline, in: lifecycles)
            if kinds[key] == nil { kindOrder.append(key) }
            kinds[key, default: []].append(index)
        }
        var leftOut = Set<UInt64>()
        var groups: [Group] = []
        for key in kindOrder {
            let members = kinds[key]!
            guard members.count >= SequenceModel.shortestFoldedRun, let last = pipelines[members[0]].events.last else { continue }
            var seqs: [UInt64] = []
            for member in members.dropFirst() {
                leftOut.formUnion(pipelines[member].events)
                if let first = pipelines[member].events.first { seqs.append(first) }
                if let last = pipelines[member].events.last { seqs.append(last) }
            }
            groups.append(Group(after: last, count: members.count - 1, seqs: seqs.min()!...seqs.max()!,
                                objects: pipelines[members[0]].objects))
        }
        self.groups = groups
        self.trace = leftOut.isEmpty ? trace : TraceSelection.restrict(
            trace, toEvents: Set(trace.events.lazy.map(\.seq).filter { !leftOut.contains($0) }), objects: nil)
    }

    /// What makes two pipelines alike: the name their end is known by (call site, label or
    /// type), then each event's kind, phase and objects, objects written as their type and
    /// their order of appearance in the pipeline.
    private static func kind(of pipeline: Pipeline, in lifecycles: TraceLifecycles) -> [String] {
        let trace = lifecycles.trace
        let end = trace.object(lifecycles.lifecycle(pipeline.end).subscriber)
        var key = [pipeline.sourceLocation ?? pipeline.label ?? end?.typeName ?? "?"]
        var local: [TraceObjectID: Int] = [:]
        for seq in pipeline.events {
            guard let event = lifecycles.event(seq) else { continue }
            var part = "\(event.kind.name) \(event.phase.rawValue)"
            for object in event.kind.objects {
                if local[object] == nil { local[object] = local.count }
                part += " \(local[object]!):\(trace.object(object)?.typeName ?? "?")"
            }
            key.append(part)
        }
        return key
    }
}
