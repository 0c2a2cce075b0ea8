import Lifeline
import LifelineAnalysis
import LifelineLog
import OpenCombineShim
import Testing

/// A screen's model that keeps its subscriptions in a set and lives on after its screen's
/// scope: the sink it started inside the scope is still subscribed when recording stops.
final class LingeringScreenModel {
    private var cancellables = Set<AnyCancellable>()
    private(set) var shown: [Int] = []

    func show(_ values: PassthroughSubject<Int, Never>) {
        values.sink { [weak self] in self?.shown.append($0) }.store(in: &cancellables)
    }
}

/// `leaked-subscription` in an observed scope carries the leak trace of what held the pipeline
/// at stop: the chain from its holder to the subscriber, the subscriber stuck since the scope
/// ended, the program's own references the suspects.
@Suite("Leak traces of a scope's leaks", .serialized)
struct ScopeLeakTraceTests {
    @Test func aSinkAModelKeepsAfterItsScopeHasTheChainFromTheModel() throws {
        let model = LingeringScreenModel()
        let values = PassthroughSubject<Int, Never>()
        let trace = try Lifeline.record {
            Lifeline.mark("screen opens")
            model.show(values)
            values.send(1)
            Lifeline.mark("screen closes")
        }
        #expect(model.shown == [1])
        let scope = try #require(ObservedScope(trace: trace, beginMark: "screen opens", endMark: "screen closes"))
        let leaks = LeakedSubscriptionRule(scope: scope).diagnose(TraceLifecycles(trace))
        let leak = try #require(leaks.count == 1 ? leaks.first : nil, "\(leaks.map(\.message))")
        let steps = try #require(leak.leakTrace?.steps)
        let names = steps.map { trace.object($0.object)?.shortTypeName ?? "?" }
        #expect(names == ["LingeringScreenModel", "Set<AnyCancellable>", "AnyCancellable", "Sink"], "\(names)")
        #expect(steps.map(\.verdict) == [.unknown, .unknown, .unknown, .stuck])
        #expect(steps.last?.reason == "still subscribed after the observed scope ended at @\(scope.end)")
        #expect(steps.first?.reason.hasPrefix("nothing in the graph holds it") == true, "\(steps.first?.reason ?? "")")
        // The model's set and the set's element are the program's; the AnyCancellable's cancel
        // closure is Combine's.
        #expect(leak.leakTrace?.suspects == ["LingeringScreenModel.cancellables", "Set<AnyCancellable>.[]"], "\(leak.leakTrace?.suspects ?? [])")
        withExtendedLifetime((model, values)) {}
    }
}
