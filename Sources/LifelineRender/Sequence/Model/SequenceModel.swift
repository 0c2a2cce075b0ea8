import LifelineAnalysis
import LifelineLog

/// A trace as every sequence renderer draws it: lanes upstream to downstream, the threads
/// and queues of the legend, and the rows (calls with their nesting, returns,
/// deallocations, marks, folded runs and diagnosis notes).
struct SequenceModel: Sendable {
    /// The participants, left to right.
    let lanes: [Lane]
    /// The threads and queues calls ran on, in legend order.
    let contexts: [ExecutionContext]
    /// The rows, top to bottom.
    let steps: [SequenceStep]
    /// The diagnoses, numbered, in the order their notes appear.
    let notes: [DiagnosisNote]
    /// For a section of a picture (``sections(fitting:)``), the calls made in a section above
    /// that are still running where this one begins, outermost first; empty otherwise.
    var carriedActivations: [CarriedActivation] = []
    /// For a section of a picture, whether a section below goes on with the calls still
    /// running at this one's end.
    var continuesBelow = false

    /// How many repetitions of one pattern a run needs before it is folded: the first and
    /// last are kept, so at least three are left out.
    static let shortestFoldedRun = 5
    /// The longest repeating block, in units, that folding looks for. Two units alternate
    /// when a value hops threads through `receive(on:)`.
    static let longestRepeatedBlock = 4

    /// Builds the model of `trace`.
    ///
    /// - Parameters:
    ///   - trace: The recorded trace.
    ///   - diagnoses: Findings to show as notes at their evidence events. Events they cite are
    ///     never folded away.
    ///   - folding: Whether to collapse long runs of identical call patterns.
    ///   - collapsing: Whether to fold each pipeline's operators into one lane
    ///     (``OperatorGroups``); calls between the folded objects are then left out.
    ///   - foldingInterleaved: Whether repeats interleaved with other lanes' calls fold too
    ///     (not on a time axis, where a fold row cannot stand for the time its values span).
    ///   - findingNumbers: The number each finding's note carries; by default its position in
    ///     ``TraceAnalyzer``'s order, counted from 1, whatever order `diagnoses` come in.
    ///   - lifecycles: The lifecycles of `trace`, when the caller has them already: folding and
    ///     collapsing need them, and rebuilding them is most of what a large trace costs.
    init(
        trace: Trace, diagnoses: [Diagnosis], folding: Bool, collapsing: Bool = false, foldingInterleaved: Bool = true,
        findingNumbers: [Diagnosis: Int] = [:], lifecycles: TraceLifecycles? = nil
    ) {
        let repeated = folding ? RepeatedPipelines(lifecycles ?? TraceLifecycles(trace), diagnoses: diagnoses) : nil
        self.init(trace: trace, repeated: repeated, diagnoses: diagnoses, collapsing: collapsing, foldingInterleaved: foldingInterleaved,
                  findingNumbers: findingNumbers, lifecycles: lifecycles)
    }

    /// Builds the model of `trace`, with its repeated pipelines already grouped (`nil` not to
    /// fold), for one grouping to serve several models; `waits`, what the pipelines still open
    /// when an unfinished log ended wait on (``PipelineWait/all(in:)``), are rows under all others.
    init(
        trace: Trace, repeated: RepeatedPipelines?, diagnoses: [Diagnosis], collapsing: Bool, foldingInterleaved: Bool,
        findingNumbers: [Diagnosis: Int], lifecycles: TraceLifecycles?, waits: [PipelineWait] = []
    ) {
        let folding = repeated != nil
        // The lifecycles of the trace drawn: the given ones unless pipelines were left out.
        let drawnLifecycles = repeated == nil ? lifecycles : repeated?.lifecycles
        let trace = (repeated?.trace ?? trace).pairingBoxedSubscribeReturns()
        let diagnoses = repeated.map { repeated in diagnoses.filter { !repeated.leftOutDiagnoses.contains($0) } } ?? diagnoses
        let cited = Set(diagnoses.flatMap(\.evidence))
        let drawn = Self.drawnObjects(of: trace, cited: cited)
        let order = LaneOrder.objects(in: trace.events).filter(drawn.contains)
        let groups = collapsing
            ? OperatorGroups(drawnLifecycles ?? TraceLifecycles(trace), pipelines: drawnLifecycles == nil ? nil : repeated?.pipelines) : nil
        let lanesOfObjects = groups.map { Self.collapsedLanes(order, groups: $0, trace: trace) } ?? order.map { [$0] }
        var laneOf = ObjectTable<Int>(objectCount: trace.objects.count)
        var lanes: [Lane] = []
        for members in lanesOfObjects {
            let objects = members.map { trace.objects[$0] ?? Self.undeclared($0) }
            for id in members { laneOf[id] = lanes.count }
            let group = groups?.groupOf[members[0]]
            lanes.append(Lane(
                index: lanes.count, object: objects[0], members: members.count > 1 || group != nil ? objects : [],
                pipeline: group.flatMap { groups?.pipelineNames[$0] },
                operatorChain: group == nil ? [] : groups.map { Self.operatorChain(objects, hopsFromEnd: $0.hopsFromEnd) } ?? []
            ))
        }
        self.lanes = lanes

        // Each thread and queue is named once, not at every event.
        var contextNames: [String] = []
        var nameOfPlace: [ExecutionPlace: Int] = [:]
        // Consecutive events nearly always ran in one place, found again without hashing.
        var lastPlace: (place: ExecutionPlace, name: Int)?
        let placeOfEvent = trace.events.map { event in
            let place = ExecutionPlace(thread: event.thread, queue: event.queue)
            if let lastPlace, lastPlace.place == place { return lastPlace.name }
            if let name = nameOfPlace[place] {
                lastPlace = (place, name)
                return name
            }
            lastPlace = (place, contextNames.count)
            nameOfPlace[place] = contextNames.count
            contextNames.append(trace.executionContextName(of: event))
            return contextNames.count - 1
        }
        var contextOrder: [String] = contextNames.contains("main") ? ["main"] : []
        var contextOf: [String: Int] = contextOrder.isEmpty ? [:] : ["main": 0]
        for name in contextNames where contextOf[name] == nil {
            contextOf[name] = contextOrder.count
            contextOrder.append(name)
        }
        contexts = contextOrder.enumerated().map { ExecutionContext(index: $0, name: $1) }
        let contextOfPlace = contextNames.map { contextOf[$0]! }

        let sortedDiagnoses = diagnoses.sorted { lhs, rhs in
            let left = lhs.evidence.max() ?? .max, right = rhs.evidence.max() ?? .max
            if left != right { return left < right }
            if lhs.code != rhs.code { return lhs.code < rhs.code }
            return lhs.message < rhs.message
        }
        var builder = StepBuilder(laneOf: laneOf, foldedObjects: Set(groups?.groupOf.keys.filter { laneOf[$0] != nil } ?? []))
        builder.reserveCapacity(rows: trace.events.count)
        for (event, place) in zip(trace.events, placeOfEvent) {
            builder.add(event, context: contextOfPlace[place], pinned: !cited.isEmpty && cited.contains(event.seq))
        }
        var steps = folding ? builder.folded(interleaved: foldingInterleaved) : builder.steps
        if let groups = repeated?.groups, !groups.isEmpty {
            steps = Self.inserting(groups, into: steps, laneOf: laneOf)
        }

        var notes: [DiagnosisNote] = []
        var notesAfter: [Int: [DiagnosisNote]] = [:]
        var trailingNotes: [DiagnosisNote] = []
        // Only the rows a finding cites are looked up: a million rows need not be hashed for a few.
        var stepIndexOfSeq: [UInt64: Int] = [:]
        for (index, step) in steps.enumerated() where !cited.isEmpty {
            if let seq = step.seq, cited.contains(seq), stepIndexOfSeq[seq] == nil { stepIndexOfSeq[seq] = index }
        }
        var inputNumber: [Diagnosis: Int] = [:]
        for (index, diagnosis) in diagnoses.sorted(by: TraceAnalyzer.precedes).enumerated() where inputNumber[diagnosis] == nil {
            inputNumber[diagnosis] = index + 1
        }
        for diagnosis in sortedDiagnoses {
            let number = findingNumbers[diagnosis] ?? inputNumber[diagnosis] ?? notes.count + 1
            let anchor = diagnosis.evidence.max().flatMap { stepIndexOfSeq[$0] }.map { Self.endOfCall(at: $0, in: steps) }
            let lane = diagnosis.objects.lazy.compactMap { laneOf[$0] }.first
                ?? anchor.flatMap { steps[$0].lanes.first }
                ?? 0
            let note = DiagnosisNote(number: number, diagnosis: diagnosis, lane: lane)
            notes.append(note)
            for seq in diagnosis.evidence {
                if let index = stepIndexOfSeq[seq] { steps[index].citedBy.append(number) }
            }
            if let anchor { notesAfter[anchor, default: []].append(note) } else { trailingNotes.append(note) }
        }
        if !notes.isEmpty {
            var withNotes: [SequenceStep] = []
            withNotes.reserveCapacity(steps.count + notes.count)
            for (index, step) in steps.enumerated() {
                withNotes.append(step)
                for note in notesAfter[index, default: []] {
                    withNotes.append(SequenceStep(content: .note(note), seq: nil, time: nil, thread: nil, context: nil))
                }
            }
            for note in trailingNotes {
                withNotes.append(SequenceStep(content: .note(note), seq: nil, time: nil, thread: nil, context: nil))
            }
            steps = withNotes
        }
        self.steps = steps + Self.waitRows(waits, laneOf: laneOf, trace: trace)
        self.notes = notes
    }

    /// Under all other rows, a row for each lane a stage of `waits` is drawn in, saying what
    /// the stage waits on: the rightmost lane first, so that a note, written rightwards from
    /// its lane, never runs across the open bar of a lane whose note comes below it; then, under
    /// them all, where `trace`, a log without its end record, ended. A lane that several stages
    /// share (a pipeline's operators folded into one) says what the most upstream of them waits
    /// on. None when no stage is drawn.
    private static func waitRows(_ waits: [PipelineWait], laneOf: ObjectTable<Int>, trace: Trace) -> [SequenceStep] {
        var noteOfLane: [Int: WaitNote] = [:]
        for stage in waits.flatMap(\.stages) {
            guard let lane = stage.objects.lazy.compactMap({ laneOf[$0] }).first else { continue }
            noteOfLane[lane] = WaitNote(lane: lane, text: stage.note, endsChain: stage.endsChain)
        }
        guard !noteOfLane.isEmpty else { return [] }
        let ending = WaitsOnRule.logEnding(of: trace, openPipelines: waits.count)
        return noteOfLane.sorted { $0.key > $1.key }.map { _, note in
            SequenceStep(content: .wait(note), seq: nil, time: nil, thread: nil, context: nil)
        } + [SequenceStep(content: .logEnd(ending), seq: nil, time: nil, thread: nil, context: nil)]
    }

    /// Where an event ran: its thread and queue, which name its execution context.
    private struct ExecutionPlace: Hashable {
        let thread: UInt64
        let queue: UInt32?
    }

    /// How many lanes the model of `trace` has with every object in a lane of its own, as
    /// ``init(trace:repeated:diagnoses:collapsing:foldingInterleaved:findingNumbers:lifecycles:)``
    /// draws it uncollapsed; found without drawing it.
    static func uncollapsedLaneCount(of trace: Trace, repeated: RepeatedPipelines?, diagnoses: [Diagnosis]) -> Int {
        let diagnoses = repeated.map { repeated in diagnoses.filter { !repeated.leftOutDiagnoses.contains($0) } } ?? diagnoses
        return drawnObjects(of: (repeated?.trace ?? trace).pairingBoxedSubscribeReturns(), cited: Set(diagnoses.flatMap(\.evidence))).count
    }

    /// The objects that get a lane: those that take part in a call. An object seen only
    /// dying has none, unless a finding cites its death. Found in a table by id, with no
    /// array or hashing per event: a million events name two million objects.
    private static func drawnObjects(of trace: Trace, cited: Set<UInt64>) -> (count: Int, contains: (TraceObjectID) -> Bool) {
        var drawn = ObjectTable<Bool>(objectCount: trace.objects.count)
        var count = 0
        func draw(_ object: TraceObjectID) {
            guard drawn[object] == nil else { return }
            drawn[object] = true
            count += 1
        }
        for event in trace.events {
            switch event.kind {
            case .deallocation(let object, _): if !cited.isEmpty && cited.contains(event.seq) { draw(object) }
            default: event.kind.forEachObject(draw)
            }
        }
        return (count, { [drawn] in drawn[$0] != nil })
    }

    /// The operators of a group lane's `members` as the code chains them (``Lane/operatorChain``):
    /// its publishers on the chain up from the pipeline's end, farthest first, one per distance
    /// and type. Publishers off that chain (those a `flatMap` subscribes inside it) are left to
    /// the tooltip; when no publisher is on it, all are named in member order.
    private static func operatorChain(_ members: [TraceObject], hopsFromEnd: [TraceObjectID: Int]) -> [String] {
        let publishers = members.filter { $0.role == .publisher }
        let chained = publishers.compactMap { publisher in hopsFromEnd[publisher.id].map { (hops: $0, publisher: publisher) } }
        guard !chained.isEmpty else { return publishers.map(\.shortTypeName) }
        var seen = Set<String>()
        // A stable sort: publishers as far from the end keep their member order.
        return chained.enumerated().sorted { ($0.element.hops, $1.offset) > ($1.element.hops, $0.offset) }.compactMap { _, link in
            seen.insert("\(link.hops) \(link.publisher.shortTypeName)").inserted ? link.publisher.shortTypeName : nil
        }
    }

    /// The lanes of a collapsed diagram, left to right, each as the objects it holds: one
    /// lane per pipeline for its folded operators, placed where its most downstream operator
    /// stood (next to the subscriber); objects of one pipeline, type and role that lived one
    /// after another (a `flatMap`'s `Future` per value) share a lane; every other object has
    /// its own.
    private static func collapsedLanes(_ order: [TraceObjectID], groups: OperatorGroups, trace: Trace) -> [[TraceObjectID]] {
        var lifetime = ObjectTable<ClosedRange<UInt64>>(objectCount: trace.objects.count)
        for event in trace.events {
            func see(_ object: TraceObjectID) {
                lifetime[object] = lifetime[object].map { $0.lowerBound...event.seq } ?? event.seq...event.seq
            }
            event.kind.forEachObject(see)
        }
        struct SuccessionKey: Hashable {
            let pipeline: Int?
            let type: String
            let role: TraceObjectRole?
        }
        var lanes: [(position: Int, members: [TraceObjectID])] = []
        var laneOfGroup: [Int: Int] = [:]
        var successions: [SuccessionKey: [Int]] = [:]
        var pipelineOfSourceLane: [Int: Int] = [:]
        var placed = lifetime.emptyCopy() as ObjectTable<Int>
        // The last event of any member of each source lane, kept as members join, so that a
        // lane of a hundred thousand short-lived sources is not rescanned for every newcomer.
        var laneEnd: [Int: UInt64] = [:]
        func join(_ object: TraceObjectID, _ lane: Int) {
            lanes[lane].members.append(object)
            placed[object] = lane
            if let end = lifetime[object]?.upperBound { laneEnd[lane] = max(laneEnd[lane] ?? end, end) }
        }
        for (position, id) in order.enumerated() {
            if let group = groups.groupOf[id] {
                if let lane = laneOfGroup[group] {
                    lanes[lane].members.append(id)
                    lanes[lane].position = position
                } else {
                    laneOfGroup[group] = lanes.count
                    lanes.append((position, [id]))
                }
                continue
            }
            // A source and the subscriptions it hands out share a lane, and sources of one
            // type that came one after another share one too.
            func place(_ object: TraceObjectID) -> Int {
                if let lane = placed[object] { return lane }
                let declared = trace.objects[object]
                let key = SuccessionKey(pipeline: groups.pipelineOf[object], type: declared?.typeName ?? "", role: declared?.role)
                let start = lifetime[object]?.lowerBound ?? 0
                let lane = successions[key, default: []].first { lane in laneEnd[lane].map { $0 < start } ?? false }
                if let lane {
                    join(object, lane)
                    return lane
                }
                successions[key, default: []].append(lanes.count)
                if let pipeline = key.pipeline { pipelineOfSourceLane[lanes.count] = pipeline }
                lanes.append((position, []))
                join(object, lanes.count - 1)
                return lanes.count - 1
            }
            if let source = groups.sourceOf[id] {
                let lane = place(source)
                if placed[id] == nil { join(id, lane) }
                continue
            }
            _ = place(id)
        }
        // A group stands just left of its pipeline's subscriber, and a source of the pipeline
        // first met after that subscriber (the `Future` a `flatMap` subscribes per value) just
        // left of the group: upstream of the end, where the code puts it.
        var positionOf = lifetime.emptyCopy() as ObjectTable<Int>
        for (position, id) in order.enumerated() { positionOf[id] = position }
        for (group, lane) in laneOfGroup {
            if let end = groups.ends[group].flatMap({ positionOf[$0] }), end < lanes[lane].position {
                lanes[lane].position = end
            }
        }
        var movedSources = Set<Int>()
        for (lane, pipeline) in pipelineOfSourceLane {
            if let end = groups.ends[pipeline].flatMap({ positionOf[$0] }), end < lanes[lane].position {
                lanes[lane].position = end
                movedSources.insert(lane)
            }
        }
        let groupLanes = Set(laneOfGroup.values)
        func rank(_ lane: Int) -> Int { movedSources.contains(lane) ? 0 : groupLanes.contains(lane) ? 1 : 2 }
        return lanes.enumerated().sorted { lhs, rhs in
            (lhs.element.position, rank(lhs.offset), lhs.offset) < (rhs.element.position, rank(rhs.offset), rhs.offset)
        }.map(\.element.members)
    }

    /// `steps` with a fold row `× N pipelines like this` after the last row of each group's
    /// pipeline drawn.
    private static func inserting(_ groups: [RepeatedPipelines.Group], into steps: [SequenceStep], laneOf: ObjectTable<Int>) -> [SequenceStep] {
        var lastRow: [UInt64: Int] = [:]
        for (index, step) in steps.enumerated() {
            if let seq = step.seq { lastRow[seq] = index }
        }
        var after: [Int: [SequenceStep]] = [:]
        var trailing: [SequenceStep] = []
        for group in groups {
            let lanes = group.objects.compactMap { laneOf[$0] }
            let noun = "pipelines like this" + (group.codes.isEmpty ? "" : ", each with " + group.codes.joined(separator: ", "))
            let run = RepeatedRun(repeats: group.count, noun: noun, seqs: group.seqs,
                                  lanes: (lanes.min() ?? 0)...(lanes.max() ?? 0))
            let fold = SequenceStep(content: .fold(run), seq: nil, time: nil, thread: nil, context: nil)
            if let row = lastRow[group.after] { after[row, default: []].append(fold) } else { trailing.append(fold) }
        }
        var result: [SequenceStep] = []
        result.reserveCapacity(steps.count + groups.count)
        for (index, step) in steps.enumerated() {
            result.append(step)
            result += after[index, default: []]
        }
        return result + trailing
    }

    /// Where a note about the row at `index` goes: after the return of the call that row
    /// begins, so that the note does not stretch the call's activation; the row itself for
    /// anything else, and for a call that never returns.
    private static func endOfCall(at index: Int, in steps: [SequenceStep]) -> Int {
        guard case .call(_, let callee, _, let depth) = steps[index].content else { return index }
        for later in steps.indices.dropFirst(index + 1) {
            if case .callReturn(_, callee, _, depth, _) = steps[later].content { return later }
        }
        return index
    }

    /// A stand-in for an object a hand-built trace uses without declaring it (a read log
    /// always declares them).
    private static func undeclared(_ id: TraceObjectID) -> TraceObject {
        TraceObject(id: id, role: .subscriber, typeName: "unknown", shortTypeName: "unknown", lifetimeTracked: false)
    }
}

extension SequenceModel {
    /// The threads and queues the picture colours, in legend order: those its calls ran on
    /// (arrows and activations take their colour). One where only deaths were found, or marks
    /// placed, is left out: a legend entry stands for something drawn in its colour.
    var calledContexts: [ExecutionContext] {
        var called = Set<Int>()
        for step in steps where step.isColouredByContext {
            if let context = step.context { called.insert(context) }
            if called.count == contexts.count { break }
        }
        return contexts.filter { called.contains($0.index) }
    }
}

extension SequenceStep {
    /// Whether the row is drawn in the colour of the thread or queue it ran on: a call, or
    /// the return of one (deaths, marks, folds and notes are not).
    var isColouredByContext: Bool {
        switch content {
        case .call, .callReturn: return true
        case .deallocation, .mark, .fold, .note, .logEnd, .wait: return false
        }
    }

    /// The lanes a row touches, callee first.
    var lanes: [Int] {
        switch content {
        case .call(let caller, let callee, _, _), .callReturn(let caller, let callee, _, _, _):
            return caller.map { [callee, $0] } ?? [callee]
        case .deallocation(let lane, _): return [lane]
        case .note(let note): return [note.lane]
        case .wait(let wait): return [wait.lane]
        case .fold(let run): return [run.lanes.lowerBound, run.lanes.upperBound]
        case .mark, .logEnd: return []
        }
    }

    /// Calls `body` with each lane ``lanes`` lists, in that order, without making the array.
    func forEachLane(_ body: (Int) -> Void) {
        switch content {
        case .call(let caller, let callee, _, _), .callReturn(let caller, let callee, _, _, _):
            body(callee)
            if let caller { body(caller) }
        case .deallocation(let lane, _): body(lane)
        case .note(let note): body(note.lane)
        case .wait(let wait): body(wait.lane)
        case .fold(let run):
            body(run.lanes.lowerBound)
            body(run.lanes.upperBound)
        case .mark, .logEnd: break
        }
    }
}
