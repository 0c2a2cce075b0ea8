import LifelineLog
import Testing
@testable import LifelineRender

/// The same trace gives the same bytes, whichever way its dictionaries were filled.
@Suite struct DeterminismTests {
    /// The trace with its objects, threads and queues inserted in the reverse order.
    private func reinserted(_ trace: Trace) -> Trace {
        var objects: [TraceObjectID: TraceObject] = [:]
        for key in trace.objects.keys.sorted().reversed() { objects[key] = trace.objects[key] }
        var threads: [UInt64: TraceThread] = [:]
        for key in trace.threads.keys.sorted().reversed() { threads[key] = trace.threads[key] }
        var queues: [UInt32: TraceQueue] = [:]
        for key in trace.queues.keys.sorted().reversed() { queues[key] = trace.queues[key] }
        return Trace(header: trace.header, objects: objects, threads: threads, queues: queues, events: trace.events, damage: trace.damage)
    }

    @Test(arguments: GoldenFileTests.samples) func everyFormatRendersTheSameBytesTwice(_ sample: GoldenFileTests.Sample) {
        let again = reinserted(sample.trace)
        #expect(SequenceSVGRenderer.render(sample.trace, diagnoses: sample.diagnoses) == SequenceSVGRenderer.render(again, diagnoses: sample.diagnoses))
        #expect(MermaidSequenceRenderer.render(sample.trace, diagnoses: sample.diagnoses) == MermaidSequenceRenderer.render(again, diagnoses: sample.diagnoses))
        #expect(PlantUMLSequenceRenderer.render(sample.trace, diagnoses: sample.diagnoses) == PlantUMLSequenceRenderer.render(again, diagnoses: sample.diagnoses))
        #expect(MarbleSVGRenderer.render(sample.trace) == MarbleSVGRenderer.render(again))
        #expect(MarbleSVGRenderer.render(sample.trace, options: .init(axis: .time)) == MarbleSVGRenderer.render(again, options: .init(axis: .time)))
        #expect(PerfettoTraceRenderer.render(sample.trace) == PerfettoTraceRenderer.render(again))
    }

    @Test func diagnosesInAnyOrderGiveTheSameNotes() {
        let trace = SampleTraces.receiveOnQueue
        let first = SampleTraces.receiveOnDiagnoses + SampleTraces.hostileDiagnoses
        #expect(SequenceSVGRenderer.render(trace, diagnoses: first) == SequenceSVGRenderer.render(trace, diagnoses: first.reversed()))
    }
}
