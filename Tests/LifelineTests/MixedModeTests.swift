import OpenCombineShim
import Testing
import Lifeline
import LifelineAnalysis
import LifelineLog

extension RecordingTests {
    /// `.lifeline(_:)` under the default automatic mode: each call of the hop is recorded once,
    /// on objects that carry the hop's label and source location.
    @Suite struct MixedModeTests {
        func calls(of subscriber: TraceObjectID, in trace: Trace) -> [String] {
            trace.events.compactMap { event in
                guard event.phase == .begin else { return nil }
                switch event.kind {
                case .subscribe(_, let id) where id == subscriber: return "subscribe"
                case .receiveSubscription(let id, _) where id == subscriber: return "receive(subscription:)"
                case .value(let id, _, let value) where id == subscriber: return "receive(\(value ?? "?"))"
                case .completion(let id, _) where id == subscriber: return "receive(completion:)"
                default: return nil
                }
            }
        }

        @Test func aLabelledHopIsRecordedOnceAndDiagnosedClean() throws {
            var received: [Int] = []
            let line = #line + 5
            let trace = try Lifeline.record(options: RecordingOptions(valueDescriptionLimit: 20)) {
                let subject = PassthroughSubject<Int, Never>()
                let cancellable = subject
                    .map { $0 * 10 }
                    .lifeline("hop")
                    .sink { received.append($0) }
                subject.send(1)
                subject.send(2)
                subject.send(completion: .finished)
                cancellable.cancel()
            }
            #expect(received == [10, 20])
            let labelled = trace.objects.values.filter { $0.label != nil }
            #expect(labelled.map(\.shortTypeName) == ["Sink"])
            let sink = try #require(labelled.first)
            #expect(sink.label == "hop")
            #expect(sink.sourceLocation?.fileAndLineAsRecorded == "LifelineTests/MixedModeTests.swift:\(line)")
            #expect(calls(of: sink.id, in: trace) == [
                "subscribe", "receive(subscription:)", "receive(10)", "receive(20)", "receive(completion:)",
            ])
            #expect(!trace.objects.values.contains { $0.typeName.contains("LifelineSubscri") })
            #expect(TraceAnalyzer().diagnose(trace).map(\.code) == [])
        }

        @Test func anErasedPublisherHandsOnItsSubscriberUnderOneID() throws {
            let trace = try Lifeline.record {
                let subject = PassthroughSubject<Int, Never>()
                let cancellable = subject.eraseToAnyPublisher().lifeline("erased").sink { _ in }
                subject.send(1)
                cancellable.cancel()
            }
            let sinks = trace.objects.values.filter { $0.shortTypeName == "Sink" }
            #expect(sinks.count == 1)
            #expect(!trace.objects.values.contains { $0.shortTypeName == "AnySubscriber" })
            let sink = try #require(sinks.first)
            #expect(sink.label == "erased")
            #expect(calls(of: sink.id, in: trace) == ["subscribe", "receive(subscription:)", "receive(?)"])
            #expect(TraceAnalyzer().diagnose(trace).map(\.code) == [])
        }
    }
}
