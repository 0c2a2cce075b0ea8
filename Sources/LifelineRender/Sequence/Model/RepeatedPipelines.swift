import LifelineAnalysis
import LifelineLog

/// Pipelines that repeat one another: made at the same call site (or with the same label, or
/// ending in the same subscriber type) and with the same shape (the same calls between
/// objects of the same types, in the same order). A log of 83,000 short-lived pipelines
/// draws the first of each kind, and a fold row `× 82,999 pipelines like this` for the rest.
///
/// A kind needs ``SequenceModel/shortestFoldedRun`` pipelines to be grouped. The findings
/// that cite a pipeline are part of its kind (83,000 pipelines each cancelled at once are
/// alike, one that leaked is not), and the left-out pipelines' findings are left out with
/// them: the fold row names their codes.
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
        /// The codes of the findings each left-out pipeline has, sorted.
        let codes: [String]
    }

    /// The trace without the left-out pipelines' events.
    let trace: Trace
    /// The lifecycles of ``trace`` when it is the whole trace (no pipeline was left out), so
    /// that they are not rebuilt; `nil` when pipelines were left out.
    let lifecycles: TraceLifecycles?
    /// The pipelines of ``lifecycles``, when it has them.
    let pipelines: TracePipelines?
    /// The groups, by the pipeline drawn.
    let groups: [Group]
    /// The findings about left-out pipelines only.
    let leftOutDiagnoses: Set<Diagnosis>

    /// Groups the pipelines of the trace `lifecycles` were rebuilt from.
    init(_ lifecycles: TraceLifecycles, diagnoses: [Diagnosis]) {
        let trace = lifecycles.trace
        let pipelinesIndex = TracePipelines(lifecycles)
        let pipelines = pipelinesIndex.pipelines
        guard pipelines.count >= SequenceModel.shortestFoldedRun else {
            self.trace = trace
            self.lifecycles = lifecycles
            self.pipelines = pipelinesIndex
            groups = []
            leftOutDiagnoses = []
            return
        }
        var codesOf: [Pipeline.ID: [String]] = [:]
        var findingsOf: [Pipeline.ID: [Diagnosis]] = [:]
        // A finding belongs to the pipelines of the events it cites (a shared subject would
        // tie it to every pipeline); one that cites no event, to those of its objects.
        // Events are kept by their position in the trace, not hashed: there are a million.
        let positions = EventPositions(trace.events)
        var pipelineAt = [Int32](repeating: -1, count: diagnoses.isEmpty ? 0 : trace.events.count)
        for (index, pipeline) in pipelines.enumerated() where !diagnoses.isEmpty {
            for seq in pipeline.events { if let position = positions.position(of: seq) { pipelineAt[position] = Int32(index) } }
        }
        for diagnosis in diagnoses {
            let byEvidence = Set(diagnosis.evidence.compactMap { seq in
                positions.position(of: seq).flatMap { pipelineAt[$0] >= 0 ? pipelines[Int(pipelineAt[$0])].id : nil }
            }).sorted()
            for id in byEvidence.isEmpty ? pipelinesIndex.pipelines(citedBy: diagnosis) : byEvidence {
                codesOf[id, default: []].append(diagnosis.code)
                findingsOf[id, default: []].append(diagnosis)
            }
        }
        var kinds: [[Int]: [Int]] = [:]
        var kindOrder: [[Int]] = []
        var words = KindWords(trace)
        for (index, pipeline) in pipelines.enumerated() {
            var key = Self.kind(of: pipeline, in: lifecycles, words: &words)
            key.append(words.number(of: "findings " + codesOf[pipeline.id, default: []].sorted().joined(separator: " ")))
            if kinds[key] == nil { kindOrder.append(key) }
            kinds[key, default: []].append(index)
        }
        var leftOut = [Bool](repeating: false, count: trace.events.count)
        var anyLeftOut = false
        func isLeftOut(_ seq: UInt64) -> Bool { positions.position(of: seq).map { leftOut[$0] } ?? false }
        var groups: [Group] = []
        for key in kindOrder {
            let members = kinds[key]!
            guard members.count >= SequenceModel.shortestFoldedRun, let last = pipelines[members[0]].events.last else { continue }
            var seqs: [UInt64] = []
            for member in members.dropFirst() {
                for seq in pipelines[member].events {
                    guard let position = positions.position(of: seq) else { continue }
                    leftOut[position] = true
                    anyLeftOut = true
                }
                if let first = pipelines[member].events.first { seqs.append(first) }
                if let last = pipelines[member].events.last { seqs.append(last) }
            }
            groups.append(Group(after: last, count: members.count - 1, seqs: seqs.min()!...seqs.max()!,
                                objects: pipelines[members[0]].objects,
                                codes: Array(Set(codesOf[pipelines[members[0]].id, default: []])).sorted()))
        }
        self.groups = groups
        // A finding about a left-out pipeline goes with it, unless it also cites a drawn one.
        var drawnFindings = Set<Diagnosis>(), leftOutFindings = Set<Diagnosis>()
        for pipeline in pipelines {
            let findings = findingsOf[pipeline.id, default: []]
            if pipeline.events.contains(where: isLeftOut) { leftOutFindings.formUnion(findings) } else { drawnFindings.formUnion(findings) }
        }
        leftOutDiagnoses = leftOutFindings.subtracting(drawnFindings)
        self.trace = !anyLeftOut ? trace : TraceSelection.restrict(
            trace, toEvents: Set(trace.events.indices.lazy.filter { !leftOut[$0] }.map { trace.events[$0].seq }), objects: nil)
        self.lifecycles = !anyLeftOut ? lifecycles : nil
        self.pipelines = !anyLeftOut ? pipelinesIndex : nil
    }

    /// What makes two pipelines alike: the name their end is known by (call site, label or
    /// type), then each event's kind, phase and objects, objects written as their type and
    /// their order of appearance in the pipeline; every word as its number in `words`.
    private static func kind(of pipeline: Pipeline, in lifecycles: TraceLifecycles, words: inout KindWords) -> [Int] {
        let trace = lifecycles.trace
        let end = trace.object(lifecycles.lifecycle(pipeline.end).subscriber)
        var key = [words.number(of: pipeline.sourceLocation ?? pipeline.label ?? end?.typeName ?? "?")]
        var local: [TraceObjectID: Int] = [:]
        for seq in pipeline.events {
            guard let event = lifecycles.event(seq) else { continue }
            key.append(-(KindWords.callNumber(event) + 1))
            event.kind.forEachObject { object in
                let number = local[object] ?? local.count
                if number == local.count { local[object] = number }
                key.append(number)
                key.append(words.typeNumber(of: object))
            }
        }
        return key
    }
}

/// The words a pipeline's kind is made of, each numbered once: names, and object types by
/// object, so that a kind is a list of numbers, cheap to hash and compare.
private struct KindWords {
    let trace: Trace
    private var numbers: [String: Int] = [:]
    private var typeNumbers: ObjectTable<Int>

    init(_ trace: Trace) {
        self.trace = trace
        typeNumbers = ObjectTable(objectCount: trace.objects.count)
    }

    mutating func number(of word: String) -> Int {
        if let number = numbers[word] { return number }
        numbers[word] = numbers.count
        return numbers.count - 1
    }

    /// The number of the type name of `object` (`?` for an undeclared one).
    mutating func typeNumber(of object: TraceObjectID) -> Int {
        if let number = typeNumbers[object] { return number }
        let number = self.number(of: trace.object(object)?.typeName ?? "?")
        typeNumbers[object] = number
        return number
    }

    /// A number for the kind and phase of an event, the same for events that differ only in
    /// their objects.
    static func callNumber(_ event: TraceEvent) -> Int {
        let kind: Int
        switch event.kind {
        case .subscribe: kind = 0
        case .receiveSubscription: kind = 1
        case .request: kind = 2
        case .value: kind = 3
        case .completion: kind = 4
        case .cancel: kind = 5
        case .deallocation: kind = 6
        case .mark: kind = 7
        }
        let phase: Int
        switch event.phase {
        case .begin: phase = 0
        case .end: phase = 1
        case .instant: phase = 2
        }
        return kind * 3 + phase
    }
}
