import CLifelineRuntime
import Foundation
import Lifeline
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The chain every recorder is measured on: PassthroughSubject → map → filter → map → sink,
/// with an instrument at each of its 4 hops. (A `(0..<n).publisher.map.filter` chain would fuse
/// into one Sequence publisher in OpenCombine and measure no hops.)
enum ValueChain {
    /// What sits at each hop.
    enum Instrument {
        /// Nothing: the untraced chain.
        case none
        /// `handleEvents(receiveOutput:)` appending (sequence number, kind, time) to an array.
        case handleEvents
        /// `print()` to a stream that discards the text.
        case print
        /// A proxy storing a 32-byte record before and after each value (``RecordingProxy``).
        case recordBuffer
        /// `.lifeline(_:)`: records in operator mode, names hops in automatic mode.
        case lifeline
    }

    /// A text stream that throws the text away.
    struct NullStream: TextOutputStream {
        mutating func write(_ string: String) {}
    }

    /// Where `handleEvents` appends its events.
    final class EventArray {
        var events: [(seq: UInt64, kind: UInt8, time: UInt64)] = []
        var nextSeq: UInt64 = 0

        func append(_ kind: UInt8) {
            nextSeq += 1
            events.append((nextSeq, kind, lifeline_monotonic_ns()))
        }
    }

    /// The calling thread's CPU time in nanoseconds.
    static func cpuNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Sends `values` values through the chain and returns the CPU nanoseconds the sends took.
    static func send(_ values: Int, with instrument: Instrument) -> UInt64 {
        let subject = PassthroughSubject<Int, Never>()
        var total = 0
        let events = EventArray()
        let buffer = RecordBuffer()
        let cancellable: AnyCancellable
        switch instrument {
        case .none:
            cancellable = subject.map { $0 &+ 1 }.filter { $0 > 0 }.map { $0 &* 2 }.sink { total &+= $0 }
        case .handleEvents:
            cancellable = subject.handleEvents(receiveOutput: { _ in events.append(0) })
                .map { $0 &+ 1 }.handleEvents(receiveOutput: { _ in events.append(1) })
                .filter { $0 > 0 }.handleEvents(receiveOutput: { _ in events.append(2) })
                .map { $0 &* 2 }.handleEvents(receiveOutput: { _ in events.append(3) })
                .sink { total &+= $0 }
        case .print:
            cancellable = subject.print("subject", to: NullStream())
                .map { $0 &+ 1 }.print("map", to: NullStream())
                .filter { $0 > 0 }.print("filter", to: NullStream())
                .map { $0 &* 2 }.print("map 2", to: NullStream())
                .sink { total &+= $0 }
        case .recordBuffer:
            cancellable = subject.recordingProxy(buffer, object: 1)
                .map { $0 &+ 1 }.recordingProxy(buffer, object: 2)
                .filter { $0 > 0 }.recordingProxy(buffer, object: 3)
                .map { $0 &* 2 }.recordingProxy(buffer, object: 4)
                .sink { total &+= $0 }
        case .lifeline:
            cancellable = subject.lifeline("subject")
                .map { $0 &+ 1 }.lifeline("map")
                .filter { $0 > 0 }.lifeline("filter")
                .map { $0 &* 2 }.lifeline("map 2")
                .sink { total &+= $0 }
        }
        let start = cpuNanoseconds()
        sendValues(values, to: subject)
        let elapsed = cpuNanoseconds() - start
        cancellable.cancel()
        precondition(total != 0)
        return elapsed
    }

    /// The measured loop, kept out of line so that `valgrind --tool=callgrind
    /// --toggle-collect='*sendValues*'` counts exactly its instructions.
    @inline(never)
    static func sendValues(_ values: Int, to subject: PassthroughSubject<Int, Never>) {
        for value in 0..<values { subject.send(value) }
    }
}
