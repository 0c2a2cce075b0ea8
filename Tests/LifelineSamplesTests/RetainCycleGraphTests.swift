import Lifeline
import LifelineAnalysis
import LifelineLog
import LifelineSamples
import Testing

/// The retain-cycle story recorded with automatic snapshots: the ownership graph finds the
/// strong-self variant's loop and nothing in the [weak self] variant.
@Suite("The retain-cycle story's ownership graph", .serialized)
struct RetainCycleGraphTests {
    func record() throws -> Trace {
        try Lifeline.record(options: RecordingOptions(automaticSnapshots: true)) {
            SampleScenario.retainCycle.run(SampleConsole())
        }
    }

    @Test func theStrongVariantReportsExactlyItsLoop() throws {
        let trace = try record()
        let cycles = TraceAnalyzer().diagnose(trace).filter { $0.code == "retain-cycle" }
        for s in trace.snapshots { print(s.index, s.seq, s.label, s.nodes.map { "\($0.id):\($0.kind.rawValue):\(trace.object($0.id)!.shortTypeName):\($0.alive)" }, s.edges.map { "\($0.from)-\($0.field)/\($0.ownership.rawValue)->\($0.to)" }) }
        print(TextDiagnosisReport(trace: trace, diagnoses: TraceAnalyzer().diagnose(trace)).render())
        #expect(cycles.count == 1)
    }
}
