import Dispatch
import Foundation
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

        /// A `DispatchQueue.sync` inside a sink moves the same thread onto another queue and back:
        /// each event carries the queue the thread runs at that moment, however the recorder
        /// caches it.
        @Test(arguments: [false, true]) func aSyncInsideASinkShowsTheQueueItEntersAndLeaves(automatic: Bool) throws {
            let outer = DispatchQueue(label: "lifeline.tests.outer")
            let inner = DispatchQueue(label: "lifeline.tests.inner")
            var received: [Int] = []
            let trace = try Lifeline.record(options: RecordingOptions(automatic: automatic)) {
                let innerSubject = PassthroughSubject<Int, Never>()
                let outerSubject = PassthroughSubject<Int, Never>()
                let innerCancellable = innerSubject.lifeline("inner").sink { received.append($0) }
                let outerCancellable = outerSubject.lifeline("outer").sink { value in inner.sync { innerSubject.send(value) } }
                outer.sync {
                    for value in 1...3 { outerSubject.send(value) }
                }
                outerSubject.send(4)
                outer.sync { outerSubject.send(5) }
                innerCancellable.cancel()
                outerCancellable.cancel()
            }
            #expect(received == [1, 2, 3, 4, 5])
            func valueEvents(of label: String) throws -> [TraceEvent] {
                let sink = try #require(trace.objects.values.first { $0.label == label && $0.role == .subscriber })
                return trace.events.filter { $0.kind.name == "value" && $0.kind.objects == [sink.id] }
            }
            let outerValues = try valueEvents(of: "outer")
            let innerValues = try valueEvents(of: "inner")
            #expect(outerValues.count == 10 && innerValues.count == 10)
            #expect(Set((outerValues + innerValues).map(\.thread)).count == 1, "one thread delivers every value")
            #expect(innerValues.map(trace.executionContextName) == Array(repeating: "lifeline.tests.inner", count: 10))
            let outerContexts = outerValues.map(trace.executionContextName)
            #expect(Array(outerContexts[0..<6]) == Array(repeating: "lifeline.tests.outer", count: 6))
            #expect(outerContexts[6] == outerContexts[7] && !outerContexts[6].hasPrefix("lifeline.tests."))
            #expect(Array(outerContexts[8..<10]) == Array(repeating: "lifeline.tests.outer", count: 2))
        }

        /// A thread of the program's own, outside any dispatch queue, runs no queue, in either
        /// mode: it was named after libdispatch's default root queue, which it does not run.
        @Test(arguments: [false, true]) func aThreadOutsideAnyQueueIsNamedAsAThread(automatic: Bool) throws {
            let done = DispatchSemaphore(value: 0)
            var received: [Int] = []
            let trace = try Lifeline.record(options: RecordingOptions(automatic: automatic)) {
                // The thread's closure is @Sendable; the thread ends before the subject does.
                nonisolated(unsafe) let subject = PassthroughSubject<Int, Never>()
                let cancellable = subject.lifeline("connection").sink { received.append($0) }
                DispatchQueue.global().sync { subject.send(1) }
                let thread = Thread {
                    subject.send(2)
                    done.signal()
                }
                thread.name = "connection"
                thread.start()
                done.wait()
                cancellable.cancel()
            }
            #expect(received == [1, 2])
            let sink = try #require(trace.objects.values.first { $0.label == "connection" && $0.role == .subscriber })
            let values = trace.events.filter { $0.kind.name == "value" && $0.kind.objects == [sink.id] }
            #expect(values.count == 4)
            let onThread = Array(values.suffix(2))
            #expect(onThread.allSatisfy { $0.queue == nil }, "\(values.map(trace.executionContextName))")
            let thread = try #require(trace.threads[onThread[0].thread])
            #expect(onThread.map(trace.executionContextName) == [thread.name, thread.name] && thread.name.hasPrefix("thread "))
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
