import LifelineTesting
import OpenCombineShim
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
        let joined = findings.trace.objects.values.filter(\.joinedMidStream).map(\.displayName)
        #expect(joined == [], "every object of a pipeline subscribed while recording was seen subscribing")
    }
}

/// The control for the matrix: the same operators with the AnyCancellable dropped at once
/// (`_ = publisher.sink { }`) are reported, once, at the end of the chain.
@Suite("Operators with a dropped AnyCancellable", .serialized)
struct DroppedOperatorChainTests {
    struct Misuse: Sendable, CustomTestStringConvertible {
        let name: String
        let subscribe: @Sendable (PassthroughSubject<Int, Never>) -> Void
        var testDescription: String { name }
    }

    static let misuses: [Misuse] = [
        Misuse(name: "map") { _ = $0.map { $0 + 1 }.sink { _ in } },
        Misuse(name: "filter") { _ = $0.filter { $0 > 0 }.sink { _ in } },
        Misuse(name: "scan") { _ = $0.scan(0, +).sink { _ in } },
        Misuse(name: "flatMap") { _ = $0.flatMap(maxPublishers: .max(1)) { Just($0) }.sink { _ in } },
        Misuse(name: "prefix") { _ = $0.prefix(2).sink { _ in } },
        Misuse(name: "share") { _ = $0.share().sink { _ in } },
        Misuse(name: "receive(on:)") { _ = $0.receive(on: ImmediateScheduler.shared).sink { _ in } },
    ]

    @Test(arguments: misuses)
    func aDroppedChainIsCancelledImmediately(_ misuse: Misuse) throws {
        let subject = PassthroughSubject<Int, Never>()
        let findings = try LifecycleCheck().run {
            misuse.subscribe(subject)
            subject.send(1)
        }
        #expect(findings.problems.map(\.code) == ["cancelled-immediately"], "\(findings.failureMessage)")
        let subscriber = try #require(findings.problems.first?.hop?.subscriber)
        #expect(findings.trace.object(subscriber)?.shortTypeName == "Sink")
    }
}
