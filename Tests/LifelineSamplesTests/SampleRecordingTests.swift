import Foundation
import OpenCombineShim
import Testing
import Lifeline
import LifelineLog
@testable import LifelineSamples

/// Every sample, recorded: the recorder saw exactly the calls an independent hook handler
/// saw, the handshake at each hop follows the Combine contract, and recording changed nothing
/// the story printed.
@Suite("Recording the sample stories", .serialized)
struct SampleRecordingTests {
    struct Recording {
        let trace: Trace
        let journal: [HookJournal.Entry]
        let console: [String]
    }

    func record(_ scenario: SampleScenario) throws -> Recording {
        let journal = HookJournal()
        let console = SampleConsole()
        let trace = try Lifeline.record(options: RecordingOptions(valueDescriptionLimit: 40)) {
            journal.enable()
            Lifeline.mark("journal on")
            scenario.run(console)
            Lifeline.mark("journal off")
            journal.disable()
        }
        return Recording(trace: trace, journal: journal.calls, console: console.lines)
    }

    /// The recorded events in the journal's words, between the two marks.
    func calls(in trace: Trace) -> [HookJournal.Entry] {
        let marks = trace.events.filter { $0.kind.name == "mark" }.map(\.seq)
        func type(_ id: TraceObjectID) -> String { trace.object(id)?.typeName ?? "?" }
        return trace.events.compactMap { event -> HookJournal.Entry? in
            guard let first = marks.first, let last = marks.last, event.seq > first, event.seq < last else { return nil }
            let phase = event.phase.rawValue
            let call: String
            switch event.kind {
            case .subscribe(let publisher, let subscriber):
                call = "\(phase) subscribe \(type(publisher)) ← \(type(subscriber))"
            case .receiveSubscription(let subscriber, let subscription):
                call = "\(phase) receive_subscription \(type(subscriber)) ← \(type(subscription))"
            case .request(let subscription, let demand):
                call = "\(phase) request \(type(subscription)) \(demand)"
            case .value(let subscriber, let demand, _):
                call = "\(phase) value \(type(subscriber))" + (demand.map { " → \($0)" } ?? "")
            case .completion(let subscriber, .finished):
                call = "\(phase) completion \(type(subscriber)) finished"
            case .completion(let subscriber, .failure(let error)):
                call = "\(phase) completion \(type(subscriber)) failure(\(error))"
            case .cancel(let subscription):
                call = "\(phase) cancel \(type(subscription))"
            case .deallocation, .mark:
                return nil
            }
            return HookJournal.Entry(thread: event.thread, call: call)
        }
    }

    /// The threads the story's own work ran on: the thread that ran it and the samples'
    /// queues. Other tests running at the same time touch neither.
    func storyThreads(in trace: Trace) -> Set<UInt64> {
        let runner = trace.events.first { $0.kind.name == "mark" }.map(\.thread)
        let queued = trace.events.filter { trace.executionContextName(of: $0).hasPrefix("lifeline.samples.") }.map(\.thread)
        return Set(queued + (runner.map { [$0] } ?? []))
    }

    @Test(arguments: SampleScenario.all)
    func theRecorderSawExactlyWhatTheOracleSaw(_ scenario: SampleScenario) throws {
        let recording = try record(scenario)
        let threads = storyThreads(in: recording.trace)
        let recorded = calls(in: recording.trace).filter { threads.contains($0.thread) }
        let oracle = recording.journal.filter { threads.contains($0.thread) }
        #expect(!oracle.isEmpty)
        for thread in threads.sorted() {
            #expect(recorded.filter { $0.thread == thread }.map(\.call) == oracle.filter { $0.thread == thread }.map(\.call))
        }
    }

    @Test(arguments: SampleScenario.all)
    func recordingChangesNothingTheStoryPrints(_ scenario: SampleScenario) throws {
        let untraced = SampleConsole()
        scenario.run(untraced)
        #expect(try record(scenario).console == untraced.lines)
    }

    @Test(arguments: SampleScenario.all)
    func everyHopFollowsTheHandshakeOrder(_ scenario: SampleScenario) throws {
        let trace = try record(scenario).trace
        var subscribed = Set<TraceObjectID>()
        var handedSubscription = [TraceObjectID: TraceObjectID]()
        var completed = Set<TraceObjectID>()
        for event in trace.events where event.phase == .begin {
            switch event.kind {
            case .subscribe(_, let subscriber):
                subscribed.insert(subscriber)
            case .receiveSubscription(let subscriber, let subscription):
                #expect(subscribed.contains(subscriber), "seq \(event.seq): a subscription before subscribe")
                #expect(handedSubscription[subscriber] == nil || handedSubscription[subscriber] == subscription,
                        "seq \(event.seq): a second subscription")
                handedSubscription[subscriber] = subscription
            case .value(let subscriber, _, _):
                #expect(handedSubscription[subscriber] != nil, "seq \(event.seq): a value before the subscription")
                #expect(!completed.contains(subscriber), "seq \(event.seq): a value after completion")
            case .completion(let subscriber, _):
                #expect(!completed.contains(subscriber), "seq \(event.seq): a second completion")
                completed.insert(subscriber)
            default:
                continue
            }
        }
    }

    @Test func operatorModeKeepsTheForgottenSubscriptionForgotten() throws {
        func makeTheRequest(labelled: Bool, console: SampleConsole, network: OfflineNetwork) {
            let publisher: DecodedDataTaskPublisher<Article> = network.decodedDataTaskPublisher(for: Article.request)
            let subscriber = DecodableDataTaskSubscriber<Article>(console: console)
            if labelled {
                publisher.lifeline("decoded data task").subscribe(subscriber)
            } else {
                publisher.subscribe(subscriber)
            }
        }
        func run(labelled: Bool) -> [String] {
            let console = SampleConsole()
            let network = OfflineNetwork()
            network.delivery.hold()
            makeTheRequest(labelled: labelled, console: console, network: network)
            console.print("returned")
            _ = network.delivery.releaseAndWait()
            network.invalidate()
            return console.lines
        }
        let untraced = run(labelled: false)
        #expect(untraced == ["Received subscription", "deinit subscriber", "returned"])
        var traced: [String] = []
        let trace = try Lifeline.record(options: RecordingOptions(automatic: false)) { traced = run(labelled: true) }
        #expect(traced == untraced)
        let proxy = try #require(trace.objects.values.first { $0.label == "decoded data task" && $0.role == .subscription })
        #expect(trace.events.contains { $0.kind == .deallocation(object: proxy.id, evidence: .exact) })
    }
}
