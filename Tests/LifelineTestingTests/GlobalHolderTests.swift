import Lifeline
import LifelineAnalysis
import LifelineLog
import OpenCombineShim
import Testing

/// A service the program keeps in a static variable, the way apps keep their shared services:
/// it owns a subject and listens to it, keeping the subscription in its own set.
final class SharedFeedService {
    nonisolated(unsafe) static let shared = SharedFeedService()
    let updates = PassthroughSubject<Int, Never>()
    private var cancellables = Set<AnyCancellable>()
    private(set) var received: [Int] = []

    func listen() {
        updates.sink { [weak self] in self?.received.append($0) }.store(in: &cancellables)
    }

    func stopListening() {
        cancellables = []
    }
}

/// What a global or static variable holds is named from that variable, found in the program's
/// symbol table, whether or not the program tracked anything: never "nothing in the graph
/// holds it" of an object a shared service keeps.
@Suite("Holders in global variables, recorded", .serialized)
struct GlobalHolderTests {
    @Test func aSinkASharedServiceKeepsIsHeldFromItsStaticVariable() throws {
        let service = SharedFeedService.shared
        let trace = try Lifeline.record {
            service.listen()
            service.updates.send(1)
        }
        defer { service.stopListening() }
        #expect(service.received == [1])
        let stop = try #require(trace.snapshots.last)
        let global = try #require(stop.nodes.first { $0.kind == .global }, "\(stop.nodes.map(\.kind))")
        #expect(global.name == "static SharedFeedService.shared")
        #expect(trace.object(global.id)?.typeName == "LifelineTestingTests.SharedFeedService.shared")

        let sink = try #require(trace.objects.values.first { $0.shortTypeName == "Sink" })
        let graph = OwnershipGraph(snapshot: stop, trace: trace)
        let explanation = TraceLifecycles(trace).whyAlive(sink.id, in: graph)
        guard case .heldByRoot(global.id, let path) = explanation else {
            Issue.record("\(explanation)")
            return
        }
        #expect(path.first?.field == "")
        let sentence = graph.sentence(explaining: explanation, subject: "Sink")
        #expect(sentence.hasPrefix("static SharedFeedService.shared → SharedFeedService."), "\(sentence)")
        #expect(sentence.hasSuffix(" keeps Sink alive"), "\(sentence)")
        // The service listens as it means to: no finding.
        #expect(TraceAnalyzer().diagnose(TraceLifecycles(trace)).isEmpty)
    }

    @Test func aScopesLeakThroughASharedServiceStartsItsTraceAtTheVariable() throws {
        let service = SharedFeedService.shared
        let trace = try Lifeline.record {
            Lifeline.mark("screen opens")
            service.listen()
            service.updates.send(2)
            Lifeline.mark("screen closes")
        }
        defer { service.stopListening() }
        let scope = try #require(ObservedScope(trace: trace, beginMark: "screen opens", endMark: "screen closes"))
        let leaks = LeakedSubscriptionRule(scope: scope).diagnose(TraceLifecycles(trace))
        let leak = try #require(leaks.count == 1 ? leaks.first : nil, "\(leaks.map(\.message))")
        let steps = try #require(leak.leakTrace?.steps)
        #expect(steps.first.map { trace.object($0.object)?.shortTypeName } == "static SharedFeedService.shared")
        #expect(steps.first?.reason == "a global variable: it lives as long as the program", "\(steps.first?.reason ?? "")")
        #expect(steps.last?.verdict == .stuck)
    }
}
