import Foundation
import Lifeline
import LifelineLog
import OpenCombineShim
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RecordingTests {
    /// Event times are CLOCK_MONOTONIC nanoseconds since the header's origin, however the
    /// recorder timed them (the time-stamp counter where it is invariant, the clock elsewhere),
    /// and both log formats record the same events.
    @Suite struct EventClockTests {
        static func monotonicNanoseconds() -> UInt64 {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
        }

        /// Each mark's time lies between clock readings taken just before and after it, within
        /// 50 µs (the counter's calibration error over the recording, and the clock's own read).
        @Test(arguments: [TraceLogFormat.binary, .jsonLines])
        func markTimesAreMonotonicNanosecondsWithinABound(format: TraceLogFormat) throws {
            var brackets: [(before: UInt64, after: UInt64)] = []
            let trace = try Lifeline.record(options: RecordingOptions(snapshots: .none, logFormat: format)) {
                for round in 0..<20 {
                    let before = Self.monotonicNanoseconds()
                    Lifeline.mark("round \(round)")
                    brackets.append((before, Self.monotonicNanoseconds()))
                    usleep(2_000)
                }
            }
            #expect(trace.header.version == (format == .binary ? TraceHeader.currentBinaryVersion : TraceHeader.jsonLinesVersion))
            let marks = trace.events.filter { $0.kind.name == "mark" }
            try #require(marks.count == brackets.count)
            let bound: UInt64 = 50_000
            for (mark, bracket) in zip(marks, brackets) {
                let time = trace.header.clockOrigin + mark.time
                #expect(time + bound >= bracket.before && time <= bracket.after + bound,
                        "mark \(mark.seq) at \(time), read between \(bracket.before) and \(bracket.after)")
            }
            #expect(zip(trace.events, trace.events.dropFirst()).allSatisfy { $0.time <= $1.time })
        }

        /// The same pipeline recorded in either format gives the same events but for their times.
        @Test func bothFormatsRecordTheSameEvents() throws {
            func run(_ format: TraceLogFormat) throws -> [String] {
                let trace = try Lifeline.record(options: RecordingOptions(valueDescriptionLimit: 20, snapshots: .none, callSites: false, logFormat: format)) {
                    let subject = PassthroughSubject<Int, Never>()
                    let cancellable = subject.map { $0 * 2 }.filter { $0 % 3 != 0 }.sink { _ in }
                    for value in 0..<50 { subject.send(value) }
                    subject.send(completion: .finished)
                    cancellable.cancel()
                }
                return trace.events.map { "\($0.seq) \($0.phase) \($0.kind) \($0.queue.map(String.init) ?? "-")" }
            }
            let binary = try run(.binary)
            #expect(binary.count > 200)
            #expect(binary == (try run(.jsonLines)))
        }
    }
}
