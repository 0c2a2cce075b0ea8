#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Appends lines to a log file through a shared memory mapping, from any thread, without
/// locks or heap allocation.
///
/// Each line is copied straight into the file's pages, so when the process crashes or is
/// killed, every line written before is already in the kernel's page cache and survives.
/// A writer reserves its bytes with one atomic add; the file grows in chunks, under a lock
/// that only the thread crossing a chunk boundary takes. ``close(events:)`` waits for writers
/// in flight, cuts the file to its real length and appends the end record.
///
/// Because threads reserve their bytes independently, lines from different threads can
/// appear in the file in a different order from their sequence numbers. Readers order events
/// by sequence number.
public final class TraceFileWriter: Sendable {
    /// The path written to.
    public let path: String

    private let descriptor: Int32
    nonisolated(unsafe) private let mapping: UnsafeMutableRawPointer
    private let capacity: Int
    private let offset = Atomic<Int>(0)
    private let committedSize = Atomic<Int>(0)
    private let writersInFlight = Atomic<Int>(0)
    private let isClosed = Atomic<Bool>(false)
    private let dropped = Atomic<UInt64>(0)
    /// Where the one reservation that straddles the capacity began: the log ends there.
    private let straddle = Atomic<Int>(Int.max)
    private let growth = Mutex<Void>(())

    private static let chunkSize = 4 << 20
    /// MADV_POPULATE_WRITE, which Glibc's headers here predate.
    private static let populateWrite: Int32 = 23

    /// Creates (or truncates) the file at `path` and writes `header` as its first line.
    ///
    /// - Parameters:
    ///   - path: The log file.
    ///   - header: The header line.
    ///   - capacity: The largest the log may grow, in bytes. Events past it are dropped and
    ///     counted in the end record.
    public init(path: String, header: TraceHeader, capacity: Int = 64 << 30) throws(TraceWriteError) {
        self.path = path
        self.capacity = capacity
        descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        guard let mapped = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
              mapped != MAP_FAILED
        else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw .cannotOpen(path: path, reason: "cannot map it: \(reason)")
        }
        mapping = mapped
        TraceLineEncoder.withLine(for: header) { append($0) }
    }

    /// Encodes `event` and appends its line: the recorder's hot path, specialised here so that
    /// nothing generic is instantiated per event.
    ///
    /// An event that does not fit under the capacity is dropped and counted in the end record.
    public func append(_ event: TraceEvent) {
        withUnsafeTemporaryAllocation(byteCount: TraceLineEncoder.capacity(for: event), alignment: 1) { buffer in
            var line = TraceLineBuilder(buffer: buffer)
            TraceLineEncoder.encode(event, into: &line)
            write(line.bytes, isEvent: true)
        }
    }

    /// Appends one complete line that is not an event (a declaration or a snapshot). Safe to
    /// call from any thread; never blocks except to grow the file. Lines past the capacity
    /// and lines after ``close(events:)`` are dropped; only dropped events are counted.
    public func append(_ line: UnsafeRawBufferPointer) {
        write(line, isEvent: false)
    }

    private func write(_ line: UnsafeRawBufferPointer, isEvent: Bool) {
        writersInFlight.add(1, ordering: .acquiring)
        defer { writersInFlight.subtract(1, ordering: .releasing) }
        guard !isClosed.load(ordering: .acquiring) else { return }
        let start = offset.add(line.count, ordering: .relaxed).oldValue
        let end = start + line.count
        guard end <= capacity else {
            if isEvent { dropped.add(1, ordering: .relaxed) }
            if start < capacity { straddle.store(start, ordering: .relaxed) }
            return
        }
        if end > committedSize.load(ordering: .acquiring) { grow(to: end) }
        (mapping + start).copyMemory(from: line.baseAddress!, byteCount: line.count)
    }

    /// Waits for writers in flight, trims the file to what was written, appends the end
    /// record and closes the file.
    ///
    /// - Parameters:
    ///   - events: The number of events recorded, for the end record.
    ///   - neverAppended: How many of them never reached the writer (the ends of calls still
    ///     running when recording stopped); they are counted as dropped with the events that
    ///     did not fit.
    public func close(events: UInt64, neverAppended: UInt64 = 0) {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        while writersInFlight.load(ordering: .acquiring) > 0 { sched_yield() }
        let length = min(offset.load(ordering: .acquiring), capacity, straddle.load(ordering: .relaxed))
        munmap(mapping, capacity)
        ftruncate(descriptor, off_t(length))
        TraceLineEncoder.withEndLine(events: events, dropped: dropped.load(ordering: .relaxed) + neverAppended) { line in
            _ = pwrite(descriptor, line.baseAddress, line.count, off_t(length))
        }
        Glibc.close(descriptor)
    }

    private func grow(to end: Int) {
        growth.withLock { _ in
            let committed = committedSize.load(ordering: .acquiring)
            guard end > committed else { return }
            let size = min(capacity, (end / Self.chunkSize + 1) * Self.chunkSize)
            ftruncate(descriptor, off_t(size))
            // Fault the new pages in with one call rather than one trap per page. Kernels
            // older than 5.14 refuse the advice; the pages then fault in as they are written.
            _ = madvise(mapping + committed, size - committed, Self.populateWrite)
            committedSize.store(size, ordering: .releasing)
        }
    }
}

/// Why a log file could not be written.
public enum TraceWriteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file could not be created or mapped.
    case cannotOpen(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): return "cannot write the log \(path): \(reason)"
        }
    }
}
