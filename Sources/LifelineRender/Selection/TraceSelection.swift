import LifelineAnalysis
import LifelineLog

/// What part of a trace a picture draws: some pipelines, the events between two marks, or
/// only what one finding cites. Every picture is drawn from the trace this gives, so each
/// format honours the same choice.
///
/// The choices narrow each other: `--pipeline P2 --between start stop` draws P2's events
/// between the marks. The diagnoses kept are those about what is left; ownership snapshots
/// keep the chosen objects and the objects around them (see ``restrict(_:toEvents:objects:snapshotsIn:)``).
///
/// ```swift
/// var selection = TraceSelection()
/// selection.pipelines = ["P2", "search"]
/// let chosen = try selection.apply(to: trace, diagnoses: findings)
/// let svg = SequenceSVGRenderer.render(chosen.trace, diagnoses: chosen.diagnoses)
/// ```
public struct TraceSelection: Hashable, Sendable {
    /// Two marks, by label: from the first mark with the first label to the first mark with
    /// the second label after it, both included.
    public struct MarkRange: Hashable, Sendable {
        /// The label of the mark that opens the range.
        public var from: String
        /// The label of the mark that closes it.
        public var to: String

        /// Creates a range.
        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    /// The part of the trace chosen, and the findings about it.
    public struct Selected: Sendable {
        /// The trace with only the chosen events, the objects they name, and the chosen part
        /// of each snapshot.
        public let trace: Trace
        /// The findings about the chosen part, in their original order.
        public let diagnoses: [Diagnosis]
        /// The number of every finding of the whole trace, counted from 1: pass it as
        /// ``SequenceDiagramOptions/findingNumbers`` so that notes keep the whole trace's
        /// numbers.
        public let findingNumbers: [Diagnosis: Int]
    }

    /// Pipelines by id (`P3`), `.lifeline` label or call site (`File.swift:42`); empty for all.
    public var pipelines: [String]
    /// The marks to draw between, if any.
    public var between: MarkRange?
    /// The number of the finding whose cited objects and events are drawn, counted from 1 in
    /// ``TraceAnalyzer`` order (as `lifeline pipelines` and `diagnose --format json` list
    /// them).
    public var finding: Int?

    /// Creates a selection; with no arguments it selects everything.
    public init(pipelines: [String] = [], between: MarkRange? = nil, finding: Int? = nil) {
        self.pipelines = pipelines
        self.between = between
        self.finding = finding
    }

    /// Whether it selects the whole trace.
    public var isEverything: Bool { pipelines.isEmpty && between == nil && finding == nil }

    /// Narrows `trace` and its `diagnoses` (``TraceAnalyzer`` order) to the selection.
    ///
    /// - Parameter pipelines: The pipelines of `trace`, when the caller has them already: they
    ///   are not found again.
    /// - Throws: ``TraceSelectionError`` for a pipeline, mark or finding the trace does not
    ///   have; its description lists the ones it has.
    public func apply(to trace: Trace, diagnoses: [Diagnosis], pipelines known: TracePipelines? = nil) throws -> Selected {
        try apply(to: SelectableTrace(trace, diagnoses: diagnoses, pipelines: known))
    }

    /// Narrows a prepared trace to the selection: choosing one pipeline costs what the
    /// pipeline holds, not what the whole trace holds.
    func apply(to source: SelectableTrace) throws -> Selected {
        let trace = source.trace
        guard !isEverything else {
            return Selected(trace: trace, diagnoses: source.diagnoses, findingNumbers: source.findingNumbers)
        }
        var events: Set<UInt64>?
        var objects: Set<TraceObjectID>?
        var window: ClosedRange<UInt64>?
        var kept = source.diagnoses

        if !pipelines.isEmpty {
            let all = source.pipelines
            var chosen: [Pipeline] = []
            for reference in pipelines {
                let named = all.pipelines(named: reference)
                guard !named.isEmpty else {
                    throw TraceSelectionError.unknownPipeline(reference, known: all.pipelines.map(Self.reference))
                }
                for pipeline in named where !chosen.contains(pipeline) { chosen.append(pipeline) }
            }
            events = Set(chosen.flatMap(\.events)).union(source.marks.map(\.seq))
            objects = Set(chosen.flatMap(\.objects))
            let about = Set(chosen.flatMap { source.findingsAbout[$0.id.rawValue - 1] })
            kept = kept.indices.filter(about.contains).map { kept[$0] }
        }

        if let between {
            let marks = source.marks
            let labels = marks.map(\.label).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            guard let start = marks.first(where: { $0.label == between.from }) else {
                throw TraceSelectionError.unknownMark(between.from, known: labels)
            }
            guard let end = marks.first(where: { $0.label == between.to && $0.seq > start.seq }) else {
                throw labels.contains(between.to)
                    ? TraceSelectionError.noMarkAfter(between.to, after: between.from)
                    : TraceSelectionError.unknownMark(between.to, known: labels)
            }
            let range = start.seq...end.seq
            window = range
            // Within the window means an event of the trace between the marks.
            events = events.map { $0.filter(range.contains) } ?? Set(trace.events.lazy.map(\.seq).filter(range.contains))
            kept = kept.filter { $0.evidence.contains { range.contains($0) && source.positions.position(of: $0) != nil } }
        }

        if let finding {
            guard source.diagnoses.indices.contains(finding - 1) else {
                throw TraceSelectionError.unknownFinding(finding, count: source.diagnoses.count)
            }
            let diagnosis = source.diagnoses[finding - 1]
            let calls = TraceCalls(trace.events)
            var cited = Set<UInt64>()
            for seq in diagnosis.evidence {
                cited.insert(seq)
                if let call = calls.call(at: seq) {
                    cited.insert(call.begin)
                    if let end = call.end { cited.insert(end) }
                }
            }
            events = events.map { $0.intersection(cited) } ?? cited
            let citedObjects = Set(diagnosis.objects)
            objects = objects.map { $0.union(citedObjects) } ?? citedObjects
            kept = kept.contains(diagnosis) ? [diagnosis] : []
        }

        return Selected(trace: Self.restrict(source, toEvents: events, objects: objects, snapshotsIn: window),
                        diagnoses: kept, findingNumbers: source.findingNumbers)
    }

    /// How a list of choices names a pipeline: `P3 (Sink #7)`.
    private static func reference(_ pipeline: Pipeline) -> String {
        "\(pipeline.id) (\(pipeline.name))"
    }

    /// `trace` with only the events in `events` (all when `nil`), the objects they name, and
    /// in each snapshot the objects in `objects` (all when `nil`) with those around them.
    ///
    /// A snapshot keeps the chosen objects, and the objects within three references of them
    /// that play no part in another pipeline (the user's objects, closure contexts and
    /// collections that hold them), so a pipeline's graph shows who holds it. Only the
    /// snapshots taken in `window` are kept (all when `nil`): a pipeline's objects are still
    /// there in the snapshot taken at stop, after its last event.
    public static func restrict(
        _ trace: Trace, toEvents events: Set<UInt64>?, objects: Set<TraceObjectID>?, snapshotsIn window: ClosedRange<UInt64>? = nil
    ) -> Trace {
        restrict(SelectableTrace(trace, diagnoses: []), toEvents: events, objects: objects, snapshotsIn: window)
    }

    private static func restrict(
        _ source: SelectableTrace, toEvents events: Set<UInt64>?, objects: Set<TraceObjectID>?, snapshotsIn window: ClosedRange<UInt64>?
    ) -> Trace {
        let trace = source.trace
        let keptEvents = events.map { chosen in
            // A few events are looked up; most of the trace is filtered.
            chosen.count < trace.events.count / 8
                ? chosen.sorted().compactMap(source.positions.event)
                : trace.events.filter { chosen.contains($0.seq) }
        } ?? trace.events
        var named = Set<TraceObjectID>()
        for event in keptEvents { named.formUnion(event.kind.objects) }
        let chosenObjects = objects.map { $0.union(named) } ?? (events == nil ? nil : named)

        var snapshots = trace.snapshots
        if let window {
            snapshots = snapshots.filter { window.contains($0.seq) }
        }
        if let chosenObjects, !snapshots.isEmpty {
            let eventObjects = source.eventObjects
            snapshots = snapshots.map { restrict($0, to: chosenObjects, blockedBy: eventObjects) }
        }
        var declared = trace.objects
        if let chosenObjects {
            declared = [:]
            for id in chosenObjects.union(snapshots.flatMap { $0.nodes.map(\.id) }) {
                if let object = trace.objects[id] { declared[id] = object }
            }
        }
        return Trace(
            header: trace.header, objects: declared, threads: trace.threads, queues: trace.queues, events: keptEvents,
            snapshots: snapshots, damage: trace.damage, callSites: trace.callSites
        )
    }

    private static func restrict(
        _ snapshot: TraceSnapshot, to chosen: Set<TraceObjectID>, blockedBy eventObjects: Set<TraceObjectID>
    ) -> TraceSnapshot {
        var neighbours: [TraceObjectID: [TraceObjectID]] = [:]
        for edge in snapshot.edges {
            neighbours[edge.from, default: []].append(edge.to)
            neighbours[edge.to, default: []].append(edge.from)
        }
        let present = Set(snapshot.nodes.map(\.id))
        var kept = chosen.intersection(present)
        var frontier = kept.sorted()
        for _ in 0..<3 {
            var next: [TraceObjectID] = []
            for object in frontier {
                for neighbour in neighbours[object, default: []]
                where present.contains(neighbour) && !eventObjects.contains(neighbour) && kept.insert(neighbour).inserted {
                    next.append(neighbour)
                }
            }
            frontier = next
        }
        return TraceSnapshot(
            index: snapshot.index, seq: snapshot.seq, label: snapshot.label, reason: snapshot.reason,
            nodes: snapshot.nodes.filter { kept.contains($0.id) },
            edges: snapshot.edges.filter { kept.contains($0.from) && kept.contains($0.to) },
            lastChecked: snapshot.lastChecked.filter { kept.contains($0.key) }
        )
    }
}

/// A selection names something the trace does not have.
public enum TraceSelectionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No pipeline has this id, label or call site; `known` lists them all.
    case unknownPipeline(String, known: [String])
    /// No mark has this label; `known` lists the labels the trace has.
    case unknownMark(String, known: [String])
    /// The closing mark exists, but not after the opening one.
    case noMarkAfter(String, after: String)
    /// The finding number is out of range; the trace has `count` findings.
    case unknownFinding(Int, count: Int)

    public var description: String {
        switch self {
        case .unknownPipeline(let reference, let known):
            return "no pipeline \"\(reference)\"; "
                + (known.isEmpty ? "the log has no pipelines" : "the pipelines are: " + known.joined(separator: ", "))
        case .unknownMark(let label, let known):
            return "no mark \"\(label)\"; "
                + (known.isEmpty ? "the log has no marks (record them with Lifeline.mark(_:))"
                   : "the marks are: " + known.map { "\"\($0)\"" }.joined(separator: ", "))
        case .noMarkAfter(let label, let opening):
            return "no mark \"\(label)\" after the mark \"\(opening)\""
        case .unknownFinding(let number, let count):
            return "no finding \(number); "
                + (count == 0 ? "the log has no findings" : "the findings are numbered 1 to \(count) (see `lifeline pipelines`)")
        }
    }
}
