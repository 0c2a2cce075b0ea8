import Dispatch
import OpenCombineShim
import Testing
import Lifeline
import LifelineLog

extension RecordingTests {
    /// Events carry the thread and the dispatch queue they ran on.
    @Suite struct ThreadTests {
        @Test func receiveOnShowsValuesOnTheQueueNotTheSubscribingThread() throws {
            let queue = DispatchQueue(label: "lifeline.tests.delivery")
            let tracker = TrackingSubscriber(initialDemand: .unlimited)
            let trace = try Lifeline.record {
                let subject = PassthroughSubject<Int, Never>()
                subject.receive(on: queue).subscribe(tracker)
                subject.send(1)
                queue.sync {}
                tracker.cancel()
            }
            #expect(tracker.history.contains("receive(1)"))
            let sink = try #require(trace.objects.values.first { $0.shortTypeName == "TrackingSubscriber" })
            let subscribe = try #require(trace.events.first { $0.kind.name == "subscribe" && $0.kind.objects.last == sink.id })
            let value = try #require(trace.events.first { $0.kind.name == "value" && $0.kind.objects == [sink.id] })
            #expect(value.thread != subscribe.thread)
            #expect(trace.executionContextName(of: value) == "lifeline.tests.delivery")
            #expect(trace.executionContextName(of: subscribe) != "lifeline.tests.delivery")
        }

        @Test func everyThreadIsDeclaredOnceWithAName() throws {
            let queue = DispatchQueue(label: "lifeline.tests.worker")
            let trace = try Lifeline.record {
                let subject = PassthroughSubject<Int, Never>()
                let cancellable = subject.sink { _ in }
                queue.sync { subject.send(1) }
                subject.send(2)
                cancellable.cancel()
            }
            let used = Set(trace.events.map(\.thread))
            #expect(Set(trace.threads.keys) == used)
            #expect(trace.threads.values.allSatisfy { !$0.name.isEmpty })
            #expect(trace.queues.values.map(\.label).contains("lifeline.tests.worker"))
        }
    }
}
