import Lifeline
import LifelineAnalysis
import LifelineLog
import LifelineSamples
import Testing

/// Every sample story, recorded for real in automatic mode and diagnosed: a buggy story gets
/// exactly its expected codes, a correct one gets nothing at warning or error.
@Suite("Diagnosing the recorded sample stories", .serialized)
struct SampleDiagnosisTests {
    /// The codes that need more than the log: `retain-cycle` is issued from the ownership
    /// graph (issue 3), which no rule receives yet.
    static let codesNeedingTheOwnershipGraph: Set<String> = ["retain-cycle"]

    /// Records `scenario` between two marks, so that the story's run is the observed scope
    /// for `leaked-subscription`, and diagnoses it with every rule the log supports.
    func diagnose(_ scenario: SampleScenario) throws -> (trace: Trace, diagnoses: [Diagnosis]) {
        let trace = try Lifeline.record {
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
        let fromTheLog = scenario.expectedDiagnoses.filter { !Self.codesNeedingTheOwnershipGraph.contains($0) }
        #expect(found == fromTheLog.sorted(), "\(report)")
        withKnownIssue("retain-cycle is issued from the ownership graph (issue 3), which no rule receives yet") {
            #expect(found == scenario.expectedDiagnoses.sorted())
        } when: {
            scenario.expectedDiagnoses.contains { Self.codesNeedingTheOwnershipGraph.contains($0) }
        }
    }
}
