import Lifeline
import LifelineLog
import OpenCombineShim
import Testing

extension RecordingTests {
    /// A value is described once for the two events of its delivery, in both modes.
    @Suite struct ValueDescriptionTests {
        /// A value whose description counts how often it was asked for.
        final class CountedDescription: CustomStringConvertible, @unchecked Sendable {
            var count = 0
            var description: String {
                count += 1
                return "described \(count)"
            }
        }

        @Test(arguments: [true, false])
        func aValueIsDescribedOnceForTheBeginAndEndOfItsDelivery(automatic: Bool) throws {
            let value = CountedDescription()
            let trace = try Lifeline.record(options: RecordingOptions(
                automatic: automatic, valueDescriptionLimit: 40, snapshots: .none, callSites: false
            )) {
                let subject = PassthroughSubject<CountedDescription, Never>()
                let cancellable = subject.lifeline("values").sink { _ in }
                subject.send(value)
                cancellable.cancel()
            }
            var begun: [TraceObjectID: [String?]] = [:]
            var pairs = 0
            for event in trace.events {
                guard case .value(let subscriber, _, let text) = event.kind else { continue }
                if event.phase == .begin {
                    begun[subscriber, default: []].append(text)
                } else {
                    let described = begun[subscriber]?.popLast()
                    #expect(described == text, "the end of a delivery to \(subscriber) says \(text ?? "nil"), its begin \(String(describing: described))")
                    pairs += 1
                }
            }
            #expect(pairs >= 1)
            #expect(value.count == pairs, "described \(value.count) times for \(pairs) deliveries")
        }

        /// A description too long for a binary record (its text field holds about 65,000
        /// bytes) is recorded as a JSON event line inside the binary log, and reads back whole.
        @Test func aDescriptionTooLongForARecordReadsBackWhole() throws {
            let long = String(repeating: "abcdefghij", count: 7_000)
            let trace = try Lifeline.record(options: RecordingOptions(
                automatic: false, valueDescriptionLimit: 80_000, snapshots: .none, callSites: false
            )) {
                let subject = PassthroughSubject<String, Never>()
                let cancellable = subject.lifeline("long").sink { _ in }
                subject.send(long)
                subject.send("short")
                cancellable.cancel()
            }
            #expect(trace.header.format == .binary)
            let values = trace.events.compactMap { event -> String? in
                guard case .value(_, _, let text) = event.kind, event.phase == .begin else { return nil }
                return text
            }
            #expect(values == [long, "short"])
            #expect(trace.damage.isEmpty)
        }
    }
}
