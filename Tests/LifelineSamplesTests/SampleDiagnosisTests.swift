import Lifeline
import LifelineAnalysis
import LifelineLog
import LifelineSamples
import Testing

/// Every sample story, recorded for real in automatic mode (with automatic ownership snapshots)
/// and diagnosed: a buggy story gets exactly its expected codes, a correct one gets nothing at
/// warning or error.
@Suite("Diagnosing the recorded sample stories", .serialized)
struct SampleDiagnosisTests {
    /// Records `scenario` between two marks, so that the story's run is the observed scope
    /// for `leaked-subscription`, with ownership snapshots, and diagnoses it with
    /// every rule.
    func diagnose(_ scenario: SampleScenario) throws -> (trace: Trace, diagnoses: [Diagnosis]) {
        let trace = try Lifeline.record(options: RecordingOptions(snapshots: .everyCall)) {
            Lifeline.mark("story begins")
            scenario.run(SampleConsole())
            Lifeline.mark("story ends")
        }
        let scope = try #require(ObservedScope(trace: trace, beginMark: "story begins", endMark: "story ends"))
        let analyzer = TraceAnalyzer(rules: TraceAnalyzer.standardRules + [LeakedSubscriptionRule(scope: scope)])
        return (trace, analyzer.diagnose(trace))
    }

    @Test(arguments: SampleScenario.all)
    func eachStoryGetsExactlyItsExpectedDiagnoses(_ scenario: SampleScenario) throws {
        let (trace, diagnoses) = try diagnose(scenario)
        let found = diagnoses.filter { $0.severity >= .warning }.map(\.code).sorted()
        let report = TextDiagnosisReport(trace: trace, diagnoses: diagnoses).render()
        #expect(found == scenario.expectedDiagnoses.sorted(), "\(report)")
    }
}
