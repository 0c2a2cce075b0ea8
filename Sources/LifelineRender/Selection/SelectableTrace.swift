import LifelineAnalysis
import LifelineLog

/// A trace and its findings, with what choosing parts of it needs found once: its marks, its
/// pipelines and the findings about each, the position of every event. `render --split`
/// chooses pipeline after pipeline from one of these, so that each choice costs what the
/// pipeline holds rather than what the whole trace holds.
final class SelectableTrace {
    /// A mark: its event's sequence number and its label.
    typealias Mark = (seq: UInt64, label: String)

    let trace: Trace
    /// The findings, in ``TraceAnalyzer`` order.
    let diagnoses: [Diagnosis]
    /// The number of every finding, counted from 1; a repeated finding keeps its first.
    let findingNumbers: [Diagnosis: Int]
    let positions: EventPositions

    /// Prepares `trace`; `pipelines`, when the caller has found them, are not found again.
    init(_ trace: Trace, diagnoses: [Diagnosis], pipelines: TracePipelines? = nil) {
        self.trace = trace
        self.diagnoses = diagnoses
        var numbers: [Diagnosis: Int] = [:]
        for (index, diagnosis) in diagnoses.enumerated() where numbers[diagnosis] == nil { numbers[diagnosis] = index + 1 }
        findingNumbers = numbers
        positions = EventPositions(trace.events)
        knownPipelines = pipelines
    }

    private var knownPipelines: TracePipelines?

    /// The trace's pipelines.
    var pipelines: TracePipelines {
        if let knownPipelines { return knownPipelines }
        let found = TracePipelines(TraceLifecycles(trace))
        knownPipelines = found
        return found
    }

    /// The marks, in order.
    private(set) lazy var marks: [Mark] = trace.events.compactMap { event in
        if case .mark(let label) = event.kind { return (event.seq, label) }
        return nil
    }

    /// The indices in ``diagnoses`` of the findings about each pipeline, by the pipeline's
    /// position in ``pipelines``.
    private(set) lazy var findingsAbout: [[Int]] = {
        var about = [[Int]](repeating: [], count: pipelines.pipelines.count)
        for (index, cited) in pipelines.pipelines(citedBy: diagnoses).enumerated() {
            for id in cited { about[id.rawValue - 1].append(index) }
        }
        return about
    }()

    /// Every object an event names: a snapshot's neighbours of a chosen object that are
    /// among them belong to some pipeline, and are not drawn with the chosen ones.
    private(set) lazy var eventObjects: Set<TraceObjectID> = {
        var objects = Set<TraceObjectID>()
        for event in trace.events { objects.formUnion(event.kind.objects) }
        return objects
    }()
}
