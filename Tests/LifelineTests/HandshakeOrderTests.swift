import OpenCombineShim
import Testing
import Lifeline
import LifelineLog

extension RecordingTests {
    /// The recorded handshake at a hop matches, call for call, what an independent oracle
    /// subscriber saw.
    @Suite struct HandshakeOrderTests {
        @Test(arguments: [true, false])
        func subjectToCustomSubscriber(automatic: Bool) throws {
            let tracker = TrackingSubscriber(initialDemand: .max(2), returnedDemand: { $0 == 1 ? .max(1) : .none })
            let trace = try Lifeline.record(options: RecordingOptions(automatic: automatic, valueDescriptionLimit: 20)) {
                let subject = PassthroughSubject<Int, Never>()
                if automatic {
                    subject.subscribe(tracker)
                } else {
                    subject.lifeline("tracked").subscribe(tracker)
                }
                subject.send(1)
                tracker.request(.max(3))
                subject.send(2)
                subject.send(3)
                subject.send(completion: .finished)
            }
            #expect(tracker.history == [
                "receive(subscription:)", "request(max(2))", "receive(1)", "returned max(1)", "request(max(3))",
                "receive(2)", "returned max(0)", "receive(3)", "returned max(0)", "receive(completion: finished)",
            ])
            #expect(Self.handshake(of: tracker, in: trace) == ["subscribe"] + tracker.history)
        }

        @Test func cancelIsRecordedAtTheHopThatCancels() throws {
            let tracker = TrackingSubscriber(initialDemand: .unlimited)
            let trace = try Lifeline.record(options: RecordingOptions(valueDescriptionLimit: 20)) {
                let subject = CurrentValueSubject<Int, Never>(7)
                subject.subscribe(tracker)
                tracker.cancel()
                subject.send(8)
            }
            #expect(tracker.history == ["receive(subscription:)", "request(unlimited)", "receive(7)", "returned max(0)", "cancel()"])
            #expect(Self.handshake(of: tracker, in: trace) == ["subscribe"] + tracker.history)
        }

        /// The recorded calls at the tracker's hop, in the oracle's words: the begin event of each
        /// call the tracker received or made, and the demand each value returned.
        static func handshake(of tracker: TrackingSubscriber, in trace: Trace) -> [String] {
            let trackerIDs = Set(trace.objects.values.filter { $0.typeName.hasSuffix("TrackingSubscriber") }.map(\.id))
            var subscriptions = Set<TraceObjectID>()
            var calls: [String] = []
            for event in trace.events {
                switch (event.phase, event.kind) {
                case (.begin, .subscribe(_, let subscriber)) where trackerIDs.contains(subscriber):
                    calls.append("subscribe")
                case (.begin, .receiveSubscription(let subscriber, let subscription)) where trackerIDs.contains(subscriber):
                    subscriptions.insert(subscription)
                    calls.append("receive(subscription:)")
                case (.begin, .request(let subscription, let demand)) where subscriptions.contains(subscription):
                    calls.append("request(\(demand))")
                case (.begin, .value(let subscriber, _, let value?)) where trackerIDs.contains(subscriber):
                    calls.append("receive(\(value))")
                case (.end, .value(let subscriber, let demand?, _)) where trackerIDs.contains(subscriber):
                    calls.append("returned \(demand)")
                case (.begin, .completion(let subscriber, .finished)) where trackerIDs.contains(subscriber):
                    calls.append("receive(completion: finished)")
                case (.begin, .cancel(let subscription)) where subscriptions.contains(subscription):
                    calls.append("cancel()")
                default:
                    continue
                }
            }
            return calls
        }
    }
}
