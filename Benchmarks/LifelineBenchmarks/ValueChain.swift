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
        /// A proxy at each hop (``RecordingProxy``) storing a 32-byte record before and after
        /// each value into a ``RecordBuffer`` with room for `capacity` records, numbered unless
        /// `numbered` is false; with no capacity, proxies that record nothing.
        case recordBuffer(capacity: Int? = RecordBuffer.defaultCapacity, numbered: Bool = true)
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

    /// What sending the values took.
    struct SendCost {
        /// The sending thread's CPU nanoseconds: what the traced program waits for.
        var thread: UInt64
        /// The whole process's CPU nanoseconds, which include the log's growth thread.
        var process: UInt64
        /// The monotonic clock's nanoseconds: what a debounce or a timeout in the program sees,
        /// time off CPU (page faults, waits) included.
        var wall: UInt64
        /// The page faults the sending thread took.
        var threadFaults: Int
        /// The longest single send in CPU nanoseconds of the sending thread, when each send was
        /// timed.
        var longest: UInt64?
        /// How many single sends took over 100 µs, when each send was timed.
        var over100Microseconds: Int?
    }

    /// `RUSAGE_THREAD`, which Glibc declares only for `_GNU_SOURCE`.
    private static let rusageThread = __rusage_who_t(1)

    /// The page faults the calling thread has taken so far.
    static func threadFaults() -> Int {
        var usage = rusage()
        getrusage(rusageThread, &usage)
        return usage.ru_minflt + usage.ru_majflt
    }

    /// A clock's reading in nanoseconds.
    static func nanoseconds(_ clock: clockid_t) -> UInt64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Sends `values` values through the chain and returns the CPU time the sends took; with
    /// `timingEach`, also times each send (which adds a clock reading to each).
    static func send(_ values: Int, with instrument: Instrument, timingEach: Bool = false) -> SendCost {
        let subject = PassthroughSubject<Int, Never>()
        var total = 0
        let events = EventArray()
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
        case .recordBuffer(let capacity, let numbered):
            let buffer = capacity.map { RecordBuffer(capacity: $0, numbersEvents: numbered) }
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
        let start = (
            thread: nanoseconds(CLOCK_THREAD_CPUTIME_ID), process: nanoseconds(CLOCK_PROCESS_CPUTIME_ID),
            wall: nanoseconds(CLOCK_MONOTONIC), faults: threadFaults()
        )
        var longest: (longest: UInt64, over100Microseconds: Int)?
        if timingEach {
            longest = sendTimingEach(values, to: subject)
        } else {
            sendValues(values, to: subject)
        }
        var cost = SendCost(
            thread: nanoseconds(CLOCK_THREAD_CPUTIME_ID) - start.thread,
            process: nanoseconds(CLOCK_PROCESS_CPUTIME_ID) - start.process,
            wall: nanoseconds(CLOCK_MONOTONIC) - start.wall,
            threadFaults: threadFaults() - start.faults
        )
        cost.longest = longest?.longest
        cost.over100Microseconds = longest?.over100Microseconds
        cancellable.cancel()
        precondition(total != 0)
        return cost
    }

    /// Sends the values one by one, each timed by the thread's CPU clock (so that the other
    /// processes of a busy machine do not count): the longest send, and how many took over
    /// 100 µs (a stall a debounce or a timeout would notice).
    @inline(never)
    static func sendTimingEach(_ values: Int, to subject: PassthroughSubject<Int, Never>) -> (longest: UInt64, over100Microseconds: Int) {
        var longest: UInt64 = 0
        var over = 0
        var before = nanoseconds(CLOCK_THREAD_CPUTIME_ID)
        for value in 0..<values {
            subject.send(value)
            let after = nanoseconds(CLOCK_THREAD_CPUTIME_ID)
            longest = max(longest, after - before)
            if after - before > 100_000 { over += 1 }
            before = after
        }
        return (longest, over)
    }

    /// The measured loop, kept out of line so that `valgrind --tool=callgrind
    /// --toggle-collect='*sendValues*'` counts exactly its instructions.
    @inline(never)
    static func sendValues(_ values: Int, to subject: PassthroughSubject<Int, Never>) {
        for value in 0..<values { subject.send(value) }
    }
}
