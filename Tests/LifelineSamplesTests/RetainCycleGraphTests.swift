import Lifeline
import LifelineAnalysis
import LifelineLog
import LifelineSamples
import Testing

/// The retain-cycle story recorded with automatic snapshots: the ownership graph finds the
/// strong-self variant's loop, and the [weak self] variant's view model is held weakly and
/// is in no loop.
@Suite("The retain-cycle story's ownership graph", .serialized)
struct RetainCycleGraphTests {
    static func record() throws -> Trace {
        try Lifeline.record(options: RecordingOptions(snapshots: .everyCall)) {
            SampleScenario.retainCycle.run(SampleConsole())
        }
    }

    /// The view models of the story: the strong-self one is created first.
    static func viewModels(_ trace: Trace) -> [TraceObjectID] {
        trace.objects.values.filter { $0.shortTypeName == "ProfileViewModel" }.map(\.id).sorted()
    }

    @Test func theStrongVariantReportsExactlyItsLoop() throws {
        let trace = try Self.record()
        let cycles = TraceAnalyzer().diagnose(trace).filter { $0.code == "retain-cycle" }
        let viewModels = Self.viewModels(trace)
        try #require(viewModels.count == 2)
        let cycle = try #require(cycles.first)
        #expect(cycles.count == 1)
        #expect(cycle.message.hasPrefix(
            "Retain cycle: ProfileViewModel.cancellable → AnyCancellable → Sink.receiveValue (closure) → ProfileViewModel."))
        #expect(cycle.objects.first == viewModels[0])
        #expect(cycle.objects.map { trace.object($0)!.shortTypeName } == ["ProfileViewModel", "AnyCancellable", "Sink"])
        #expect(cycle.severity == .error)
        // Cited where the loop was made (the sink's subscribe call and its return, where the
        // AnyCancellable is handed back and stored), not the event the snapshot follows.
        let cited = cycle.evidence.compactMap { seq in trace.events.first { $0.seq == seq } }
        #expect(cited.map { "\($0.kind.name) \($0.phase.rawValue)" } == ["subscribe begin", "subscribe end"])
        #expect(cited.allSatisfy { $0.kind.objects.contains(cycle.objects[2]) })
        #expect(cycle.fix.contains("[weak self]"))
    }

    @Test func theWeakVariantHoldsItsViewModelWeaklyAndIsInNoLoop() throws {
        let trace = try Self.record()
        let weakViewModel = try #require(Self.viewModels(trace).last)
        let holding = trace.snapshots.flatMap(\.edges).filter { $0.to == weakViewModel && $0.field == "receiveValue (closure)" }
        #expect(!holding.isEmpty)
        #expect(holding.allSatisfy { $0.ownership == .weak })
        for snapshot in trace.snapshots {
            let graph = OwnershipGraph(snapshot: snapshot, trace: trace)
            #expect(!graph.strongCycles.contains { $0.objects.contains(weakViewModel) })
        }
    }

    @Test func theLeakedSubscriptionNamesTheLoopThatKeepsIt() throws {
        let trace = try Lifeline.record(options: RecordingOptions(snapshots: .everyCall)) {
            Lifeline.mark("story begins")
            SampleScenario.retainCycle.run(SampleConsole())
            Lifeline.mark("story ends")
        }
        let scope = try #require(ObservedScope(trace: trace, beginMark: "story begins", endMark: "story ends"))
        let leak = try #require(LeakedSubscriptionRule(scope: scope).diagnose(TraceLifecycles(trace)).first)
        let sink = try #require(trace.object(TraceObjectID(1))?.placedName)
        #expect(sink.hasPrefix("Sink #1 (ProfileViewModel.swift:"))
        #expect(leak.message.contains(
            "\(sink) is held by a retain cycle that nothing else in the graph holds: ProfileViewModel.cancellable → AnyCancellable → Sink.receiveValue (closure) → ProfileViewModel."))
    }
}
