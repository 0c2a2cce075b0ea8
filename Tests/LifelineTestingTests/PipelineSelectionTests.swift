import Foundation
import Lifeline
import LifelineAnalysis
import LifelineLog
@testable import LifelineRender
import NewsReaderApp
import Testing

/// Choosing pipeline after pipeline from one prepared trace, as `render --split` does, gives
/// each pipeline exactly its own events, the marks, the findings about it and the whole
/// trace's call sites, on a realistic app recorded with per-call snapshots and marks.
@Suite("Choosing pipelines from a real app's log", .serialized)
struct PipelineSelectionTests {
    /// The news reader's log, between two marks, with its findings.
    private func record() throws -> (Trace, TracePipelines, [Diagnosis]) {
        let trace = try Lifeline.record(options: RecordingOptions(snapshots: .everyCall)) {
            Lifeline.mark("start")
            let app = NewsReaderApp()
            #expect(app.run(), "the app's queues went quiet")
            Lifeline.mark("torn down")
            app.tearDown()
        }
        let lifecycles = TraceLifecycles(trace)
        return (trace, TracePipelines(lifecycles), TraceAnalyzer().diagnose(lifecycles))
    }

    /// The definition of the pipelines a finding is about: those holding an object it names,
    /// or, when none does, those holding an event it cites.
    private func expectedCitations(_ diagnosis: Diagnosis, in pipelines: TracePipelines) -> [Pipeline.ID] {
        let holding = pipelines.pipelines.filter { !Set($0.objects).isDisjoint(with: diagnosis.objects) }
        let citing = pipelines.pipelines.filter { !Set($0.events).isDisjoint(with: diagnosis.evidence) }
        return (holding.isEmpty ? citing : holding).map(\.id)
    }

    @Test func everyPipelineGetsItsOwnEventsFindingsAndCallSites() throws {
        let (trace, pipelines, diagnoses) = try record()
        #expect(pipelines.pipelines.count >= 8)
        #expect(diagnoses.count == 3)
        #expect(!trace.callSites.isEmpty)
        #expect(pipelines.pipelines(citedBy: diagnoses) == diagnoses.map { expectedCitations($0, in: pipelines) })

        let source = SelectableTrace(trace, diagnoses: diagnoses, pipelines: pipelines)
        let marks = Set(trace.events.filter { $0.kind.name == "mark" }.map(\.seq))
        #expect(marks.count == 2)
        for between in [nil, TraceSelection.MarkRange(from: "start", to: "torn down")] {
            for pipeline in pipelines.pipelines {
                let chosen = try TraceSelection(pipelines: [pipeline.id.description], between: between).apply(to: source)
                let own = Set(pipeline.events).union(marks)
                let window = between == nil ? 0...UInt64.max : marks.min()!...marks.max()!
                #expect(chosen.trace.events.map(\.seq) == trace.events.map(\.seq).filter { own.contains($0) && window.contains($0) },
                        "\(pipeline.id)")
                let about = diagnoses.filter { diagnosis in
                    expectedCitations(diagnosis, in: pipelines).contains(pipeline.id)
                        && (between == nil || diagnosis.evidence.contains(where: window.contains))
                }
                #expect(chosen.diagnoses == about, "\(pipeline.id)")
                #expect(chosen.trace.callSites == trace.callSites, "\(pipeline.id)")
                let named = Set(chosen.trace.events.flatMap(\.kind.objects))
                #expect(named.isSubset(of: Set(chosen.trace.objects.keys)), "\(pipeline.id)")
                for snapshot in chosen.trace.snapshots {
                    #expect(Set(snapshot.nodes.map(\.id)).isSubset(of: Set(chosen.trace.objects.keys)), "\(pipeline.id)")
                }
            }
        }
    }
}
