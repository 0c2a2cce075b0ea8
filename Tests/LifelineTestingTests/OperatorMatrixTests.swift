import LifelineTesting
import Testing

/// The no-false-positive matrix: every operator and publisher in correct use, recorded in
/// automatic mode, runs to its end and gets no error and no warning.
@Suite("Operators in correct use", .serialized)
struct OperatorMatrixTests {
    @Test func theMatrixCoversAtLeastThirtyOperatorsAndPublishers() {
        #expect(OperatorUse.matrix.count >= 30)
        #expect(Set(OperatorUse.matrix.map(\.name)).count == OperatorUse.matrix.count)
    }

    @Test(arguments: OperatorUse.matrix)
    func correctUseGetsNoErrorAndNoWarning(_ use: OperatorUse) throws {
        let outcome = PipelineOutcome()
        let findings = try expectNoLifecycleProblems { use.run(outcome) }
        #expect(outcome.events == use.expected)
        #expect(findings.trace.events.contains { $0.kind.name == "subscribe" }, "the pipeline was recorded")
    }
}
