import CLifelineRuntime
import Synchronization

/// The reference a recorder is measured against: each event is a 32-byte record (sequence
/// number, time-stamp counter, object, thread and kind) stored into preallocated memory at an
/// index taken with one atomic add. No formatting, no identity look-up, no file.
///
/// With room for one record, every event overwrites the same 32 bytes, which stay in the
/// cache: what is left is what any recorder that numbers and times each event pays, the atomic
/// add and the `rdtsc`. Without numbering, the `rdtsc` alone is left: the least a recorder that
/// times each event can pay, even one that ordered events by their time stamps alone.
final class RecordBuffer: Sendable {
    /// 64 MiB: the records wrap around, so the buffer's pages are touched once each.
    static let defaultCapacity = 1 << 21
    private let mask: Int
    nonisolated(unsafe) private let records: UnsafeMutablePointer<(UInt64, UInt64, UInt64, UInt64)>
    private let next = Atomic<UInt64>(0)
    private let numbersEvents: Bool

    /// A buffer of `capacity` records, a power of two, whose records are numbered with an atomic
    /// add unless `numbersEvents` is false.
    init(capacity: Int = RecordBuffer.defaultCapacity, numbersEvents: Bool = true) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "a record buffer's capacity is a power of two")
        precondition(numbersEvents || capacity == 1, "records that are not numbered all go into one slot")
        mask = capacity - 1
        self.numbersEvents = numbersEvents
        records = .allocate(capacity: capacity)
        records.initialize(repeating: (0, 0, 0, 0), count: capacity)
    }

    deinit {
        records.deallocate()
    }

    /// How many records were stored.
    var count: UInt64 { next.load(ordering: .relaxed) }

    func record(object: UInt64, kind: UInt64) {
        let seq = numbersEvents ? next.add(1, ordering: .relaxed).oldValue : 0
        records[Int(seq) & mask] = (seq, lifeline_cycle_counter(), object, kind | lifeline_thread_id() << 8)
    }
}
