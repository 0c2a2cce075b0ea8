import CLifelineRuntime
import Synchronization

/// The reference a recorder is measured against: each event is a 32-byte record (sequence
/// number, time-stamp counter, object, thread and kind) stored into preallocated memory at an
/// index taken with one atomic add. No formatting, no identity look-up, no file.
final class RecordBuffer: Sendable {
    /// 64 MiB: the records wrap around, so the buffer's pages are touched once each.
    private static let capacity = 1 << 21
    nonisolated(unsafe) private let records: UnsafeMutablePointer<(UInt64, UInt64, UInt64, UInt64)>
    private let next = Atomic<UInt64>(0)

    init() {
        records = .allocate(capacity: Self.capacity)
        records.initialize(repeating: (0, 0, 0, 0), count: Self.capacity)
    }

    deinit {
        records.deallocate()
    }

    /// How many records were stored.
    var count: UInt64 { next.load(ordering: .relaxed) }

    func record(object: UInt64, kind: UInt64) {
        let seq = next.add(1, ordering: .relaxed).oldValue
        records[Int(seq) & (Self.capacity - 1)] = (seq, lifeline_cycle_counter(), object, kind | lifeline_thread_id() << 8)
    }
}
