import CLifelineRuntime
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Appends lines to a log file through shared memory mappings, from any thread, without
/// locks or heap allocation.
///
/// Each line is copied straight into the file's pages, so when the process crashes or is
/// killed, every line written before is already in the kernel's page cache and survives.
/// A writer reserves its bytes with one atomic add. The file grows in steps of 1/8 of the log
/// (at least 64 KiB, at most 4 MiB), so a killed process leaves little zero padding. A thread
/// of the writer's own (``LogGrowthThread``) keeps the file grown and its pages faulted in half
/// a step ahead of the writers, who ask it when they come within a quarter step of the end (so
/// a kill leaves at most about half a step of zero padding); a writer that gets past the end
/// anyway grows the file itself by a step, under a lock that only such a writer and the growth
/// thread take, and lets its pages fault in as it writes. The file is
/// mapped in 64 MiB windows, each mapped when the file first grows into it, so the process
/// reserves only about as much address space as the log takes (`ulimit -v` and valgrind
/// refuse a large reservation up front).
///
/// ``close(events:neverAppended:)`` waits for writers in flight, cuts the file to its real length and
/// appends the end record. A process that exits without closing its writers has each of
/// them cut to its real length at exit, with no end record: the recording was not stopped.
///
/// Because threads reserve their bytes independently, lines from different threads can
/// appear in the file in a different order from their sequence numbers. Readers order events
/// by sequence number.
///
/// Binary records of events numbered by ``beginEvent()`` go into a chunk of the file that their
/// thread reserved (4 KiB, with one atomic add), so such an event takes no shared atomic
/// operation but its sequence number; a chunk's unused end is filled with filler bytes when the
/// thread takes its next chunk and when writing stops (log format versions 7 and 9, docs/LogFormat.md).
///
/// A version 6, 7 or 9 header makes a log of binary event records (``appendRecord(_:)``). Its lines
/// and records are written so that a kill leaves each either whole, absent, or recognisably
/// torn: a line front to back, a record's length first and its commit byte last. When such a
/// log's events are timed by the time-stamp counter, each growth step also writes a `clock`
/// line, so that even a log cut off by a kill converts its times to nanoseconds.
public final class TraceFileWriter: Sendable {
    /// The path written to.
    public let path: String
    /// How events are written: binary records for a version 6, 7 or 9 header, JSON lines otherwise.
    public let format: TraceLogFormat

    private let descriptor: Int32
    private let ownerProcess: pid_t
    /// The base address of each mapped window, or nil. An entry is written once, under
    /// `growth`, before `committedSize` is raised past the window's start; writers read it
    /// only below a `committedSize` they loaded with acquiring ordering.
    nonisolated(unsafe) private let windows: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let windowCount: Int
    private let windowShift: Int
    private let windowSize: Int
    /// The writer's state in one word, so that a write reserves its bytes and says it is in
    /// flight with one atomic add: the bytes reserved so far (above bit 20), the writers in
    /// flight (the low 20 bits), and whether writing stopped (the top bit). A writer that finds
    /// it stopped backs out; one that reserved before it stopped writes, and stopping waits
    /// for it.
    private let state = Atomic<UInt64>(0)
    private static let inFlightBits: UInt64 = 20
    private static let inFlightMask: UInt64 = (1 << inFlightBits) - 1
    private static let stoppedBit: UInt64 = 1 << 63
    /// How far writers may write: every byte below it is mapped and writable.
    private let committedSize = Atomic<Int>(0)
    /// Where a reservation that ends past it asks the growth thread to grow the log ahead: half
    /// the first step at first, so that a short log never starts the thread.
    private let lowWater = Atomic<Int>(TraceFileWriter.smallestStep / 2)
    /// Grows the log ahead of the writers.
    private let growthThread = LogGrowthThread()
    private let dropped = Atomic<UInt64>(0)
    /// Where the first reservation that could not be written began: the log ends there.
    private let cutoff = Atomic<Int>(Int.max)
    private let growth: Mutex<Growth>
    /// This writer's id among all writers of the process, which keys each thread's chunk.
    private let id: UInt64
    /// The next sequence number, with `LIFELINE_SEQUENCE_STOPPED` set once numbering stops and
    /// `LIFELINE_SEQUENCE_FULL` once the log could not grow (from then on no event is written,
    /// not even into the room left in a thread's chunk, because the lines that declare the
    /// objects later events name are dropped too): a thread takes an event's number and learns
    /// whether it may still write with one atomic add. With the writer's id, on a cache line of
    /// its own, for `lifeline_record`.
    nonisolated(unsafe) package let log: UnsafeMutablePointer<lifeline_log>
    private static let fullBit: UInt64 = LIFELINE_SEQUENCE_FULL
    private static let numberingStoppedBit: UInt64 = LIFELINE_SEQUENCE_STOPPED
    /// The sequence number that was next when writing stopped, or 0 while it runs.
    private let sequenceAtStop = Atomic<UInt64>(0)
    /// Room for the end record (at most 96 bytes) that the file keeps allocated past every byte
    /// writers may write, and that closing keeps past the bytes written while it writes the
    /// record: on a full file system an end record that needed another block would fail for
    /// want of space (or be cut short), leaving a log that does not say what was lost. Writers
    /// stop this far before the file's allocated end, so the blocks are always there.
    static let closingRoom = 128

    /// How many bytes a thread reserves at a time for its records.
    private let chunkSize: Int
    /// Every thread's chunk of this log (addresses of `lifeline_chunk`s), which stopping pads.
    private let chunks = Mutex<[UInt]>([])
    private static let writerIDs = Atomic<UInt64>(1)
    /// Reads the time-stamp counter and the event time together, for `clock` lines.
    private let clock: (@Sendable () -> (tsc: UInt64, time: UInt64))?

    private struct Growth {
        var mappedWindows = 0
        /// The file's length, at or past `committedSize`.
        var length = 0
        /// How far the growth thread has faulted the file's pages in.
        var populated = 0
        /// The log may not grow past this: the capacity, or where growing failed.
        var limit: Int
        var failure: String?
    }

    private static let smallestStep = 64 << 10
    private static let largestStep = 4 << 20
    /// The most windows a log is mapped in, to bound the window table.
    private static let largestWindowCount = 1 << 16
    /// MADV_POPULATE_WRITE, which Glibc's headers here predate.
    private static let populateWrite: Int32 = 23

    /// Creates (or truncates) the file at `path` and writes `header` as its first line.
    ///
    /// - Parameters:
    ///   - path: The log file.
    ///   - header: The header line.
    ///   - capacity: The largest the log may grow, in bytes. Events past it are dropped and
    ///     counted in the end record.
    ///   - clock: For a version 6 log timed by the time-stamp counter: reads the counter and
    ///     the event time together, for the `clock` line written at each growth step.
    public convenience init(
        path: String, header: TraceHeader, capacity: Int = 64 << 30,
        clock: (@Sendable () -> (tsc: UInt64, time: UInt64))? = nil
    ) throws(TraceWriteError) {
        try self.init(path: path, header: header, capacity: capacity, windowShift: 26, clock: clock)
    }

    /// Creates a writer that maps the file in windows of `1 << windowShift` bytes (64 MiB
    /// outside tests). Capacities above 65,536 windows are cut to that.
    init(
        path: String, header: TraceHeader, capacity: Int, windowShift: Int, chunkSize: Int = 4 << 10,
        clock: (@Sendable () -> (tsc: UInt64, time: UInt64))? = nil
    ) throws(TraceWriteError) {
        self.path = path
        id = Self.writerIDs.add(1, ordering: .relaxed).oldValue
        log = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<lifeline_log>.size, alignment: 64)
            .initializeMemory(as: lifeline_log.self, repeating: lifeline_log(sequence: 1, writer: id, generation: 0, clock_origin: 0, padding: (0, 0, 0, 0)), count: 1)
        self.chunkSize = min(max(chunkSize, 64), 32 << 10) & ~7
        format = header.format
        self.clock = header.format == .binary ? clock : nil
        self.windowShift = windowShift
        windowSize = 1 << windowShift
        let capacity = min(max(capacity, 0), Self.largestWindowCount << windowShift)
        ownerProcess = getpid()
        windowCount = max(1, (capacity + windowSize - 1) >> windowShift)
        growth = Mutex(Growth(limit: capacity))
        descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            windows = .allocate(capacity: 0)
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        windows = .allocate(capacity: windowCount)
        windows.initialize(repeating: nil, count: windowCount)
        let headerLength = TraceLineEncoder.withLine(for: header) { $0.count }
        guard grow(to: min(headerLength, capacity)) else {
            let reason = growth.withLock { $0.failure } ?? "its capacity is too small"
            unmapWindows()
            // A log that never got its header is no log: leave no empty file behind (only a
            // regular file, never the device or FIFO a path may name).
            var status = stat()
            if fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFREG { unlink(path) }
            Glibc.close(descriptor)
            throw .cannotOpen(path: path, reason: reason)
        }
        TraceLineEncoder.withLine(for: header) { append($0) }
        growthThread.prepare { [weak self] in self?.growAhead() }
        Self.openWriters.withLock { $0[ObjectIdentifier(self)] = self }
        _ = Self.exitHandler
    }

    deinit {
        growthThread.stop()
        windows.deallocate()
        log.deallocate()
        chunks.withLock { $0.forEach { UnsafeMutablePointer<lifeline_chunk>(bitPattern: $0)?.deallocate() } }
    }

    /// An event being recorded on the calling thread: its sequence number, and the thread's
    /// chunk of the log, which its record goes into. Every ticket ends with ``endEvent(_:)``.
    public struct EventTicket {
        /// The event's sequence number.
        public let seq: UInt64
        let chunk: UnsafeMutablePointer<lifeline_chunk>
        /// False once the log is full: the event is then counted as dropped instead of written.
        let writes: Bool
    }

    /// Begins recording an event on the calling thread: takes its sequence number. Returns nil,
    /// with nothing to end, once the log is stopping.
    ///
    /// The thread says it is busy in its chunk before it takes the number, and the number's
    /// atomic add releases that: stopping sets the stop bit in the same counter with an add
    /// that acquires, then waits for every chunk that was busy to be left. So every event whose
    /// number was taken before the stop is in the log, and none after it.
    @inline(__always)
    public func beginEvent() -> EventTicket? {
        let chunk = lifeline_chunk_current(id) ?? adoptChunk()
        lifeline_chunk_enter(chunk)
        let before = lifeline_sequence_take(log)
        guard before & Self.numberingStoppedBit == 0 else {
            lifeline_chunk_leave(chunk)
            return nil
        }
        return EventTicket(seq: before & ~Self.fullBit, chunk: chunk, writes: before & Self.fullBit == 0)
    }

    /// Ends the event `ticket` began, written or not.
    @inline(__always)
    public func endEvent(_ ticket: EventTicket) {
        lifeline_chunk_leave(ticket.chunk)
    }

    /// The sequence number of the last event begun, or 0 before the first.
    public var lastSequence: UInt64 {
        let stopped = sequenceAtStop.load(ordering: .relaxed)
        return (stopped != 0 ? stopped : lifeline_sequence_load(log) & ~(Self.numberingStoppedBit | Self.fullBit)) - 1
    }

    /// Finishes an event `lifeline_record` numbered but could not store
    /// (`LIFELINE_RECORD_NEEDS_PLACING`): places its record and leaves the thread's chunk.
    package func place(_ pending: UnsafePointer<lifeline_pending_record>) {
        let ticket = EventTicket(seq: pending.pointee.seq, chunk: pending.pointee.chunk, writes: pending.pointee.writes != 0)
        withUnsafeBytes(of: pending.pointee.record) { record in
            place(UnsafeRawBufferPointer(rebasing: record[..<Int(pending.pointee.length)]), for: ticket)
        }
        endEvent(ticket)
    }

    /// The calling thread's chunk of this log, made the first time the thread records into it
    /// (or found again when it wrote to another log since).
    @inline(never)
    @discardableResult
    package func adoptChunk() -> UnsafeMutablePointer<lifeline_chunk> {
        let thread = lifeline_thread_id()
        let chunk = chunks.withLock { chunks in
            if let found = chunks.lazy.compactMap({ UnsafeMutablePointer<lifeline_chunk>(bitPattern: $0) })
                .first(where: { $0.pointee.thread == thread }) {
                return found
            }
            let chunk = UnsafeMutablePointer<lifeline_chunk>.allocate(capacity: 1)
            chunk.initialize(to: lifeline_chunk(cursor: nil, remaining: 0, end: 0, busy: 0, writer: id, thread: thread))
            chunks.append(UInt(bitPattern: chunk))
            return chunk
        }
        lifeline_chunk_adopt(chunk)
        return chunk
    }

    /// Copies `record` (8-byte aligned) into the thread's chunk, reserving a new chunk when it
    /// does not fit. A record too long for chunks is written with a reservation of its own.
    @inline(__always)
    private func place(_ record: UnsafeRawBufferPointer, for ticket: EventTicket) {
        guard ticket.writes else {
            dropped.add(1, ordering: .relaxed)
            return
        }
        let chunk = ticket.chunk
        let stored = lifeline_chunk_store(chunk, record.baseAddress!.assumingMemoryBound(to: UInt64.self), UInt64(record.count))
        if stored == 0 { placeSlowly(record, in: chunk) }
    }

    /// ``place(_:in:)`` when the record does not fit the chunk, or the chunk straddles two
    /// mapping windows.
    @inline(never)
    private func placeSlowly(_ record: UnsafeRawBufferPointer, in chunk: UnsafeMutablePointer<lifeline_chunk>) {
        let count = record.count
        if count > Int(chunk.pointee.remaining) {
            guard count <= chunkSize / 4 else { return write(record, isEvent: true, isRecord: true) }
            guard renew(chunk) else {
                dropped.add(1, ordering: .relaxed)
                return
            }
            if lifeline_chunk_store(chunk, record.baseAddress!.assumingMemoryBound(to: UInt64.self), UInt64(count)) != 0 { return }
        }
        copyRecord(record, to: Int(chunk.pointee.end - chunk.pointee.remaining))
        chunk.pointee.remaining -= UInt64(count)
    }

    /// Ends the log at `start`, where a reservation could not be written, and stops events
    /// from being written from then on.
    private func markFull(at start: Int) {
        cutoff.min(start, ordering: .relaxed)
        _ = lifeline_sequence_set(log, Self.fullBit)
    }

    /// Fills the unused end of `chunk` and reserves the thread a new one. Returns false, leaving
    /// the chunk empty, when the log may not grow that far.
    private func renew(_ chunk: UnsafeMutablePointer<lifeline_chunk>) -> Bool {
        fill(chunk)
        let before = state.add(UInt64(chunkSize) << Self.inFlightBits, ordering: .acquiringAndReleasing).oldValue
        guard before & Self.stoppedBit == 0 else { return false }
        let start = Int((before & ~Self.stoppedBit) >> Self.inFlightBits)
        let end = start + chunkSize
        var grew = false
        guard end <= committedSize.load(ordering: .acquiring) || grow(to: end, grew: &grew) else {
            markFull(at: start)
            return false
        }
        if end > lowWater.load(ordering: .relaxed) { growthThread.request() }
        let within = start & (windowSize - 1)
        chunk.pointee.cursor = within + chunkSize <= windowSize
            ? (windows[start >> windowShift]! + within).assumingMemoryBound(to: UInt8.self) : nil
        chunk.pointee.remaining = UInt64(chunkSize)
        chunk.pointee.end = UInt64(end)
        if grew { writeClockLine() }
        return true
    }

    /// Writes filler bytes over the unused end of `chunk` and empties it.
    private func fill(_ chunk: UnsafeMutablePointer<lifeline_chunk>) {
        let end = Int(chunk.pointee.end)
        var position = end - Int(chunk.pointee.remaining)
        while position < end {
            let within = position & (windowSize - 1)
            let count = min(end - position, windowSize - within)
            (windows[position >> windowShift]! + within).initializeMemory(as: UInt8.self, repeating: BinaryEventRecord.fillerByte, count: count)
            position += count
        }
        chunk.pointee.cursor = nil
        chunk.pointee.remaining = 0
    }

    /// Encodes `event` and appends its line: the recorder's hot path, specialised here so that
    /// nothing generic is instantiated per event.
    ///
    /// An event that does not fit under the capacity is dropped and counted in the end record.
    public func append(_ event: borrowing TraceEvent) {
        let capacity = TraceLineEncoder.capacity(for: event)
        if capacity <= Self.eventLineCapacity {
            // The common case, in a fixed buffer on the stack.
            var storage = EventLineStorage()
            withUnsafeMutableBytes(of: &storage) { buffer in
                var line = TraceLineBuilder(buffer: buffer)
                TraceLineEncoder.encode(event, into: &line)
                write(line.bytes, isEvent: true)
            }
            return
        }
        withUnsafeTemporaryAllocation(byteCount: capacity, alignment: 1) { buffer in
            var line = TraceLineBuilder(buffer: buffer)
            TraceLineEncoder.encode(event, into: &line)
            write(line.bytes, isEvent: true)
        }
    }

    /// Encodes `event` as a binary record and appends it: the recorder's hot path in a version 6
    /// log. An event the binary form cannot hold (an id past 32 bits, a text past 64 KiB) is
    /// written as a JSON line instead, which such a log also reads.
    public func appendRecord(_ event: borrowing TraceEvent) {
        guard let length = BinaryEventRecord.length(of: event) else { return append(event) }
        if length <= MemoryLayout<RecordStorage>.size {
            var storage = RecordStorage()
            withUnsafeMutableBytes(of: &storage) { buffer in
                BinaryEventRecord.encode(event, length: length, into: buffer.baseAddress!)
                write(UnsafeRawBufferPointer(rebasing: buffer[..<length]), isEvent: true, isRecord: true)
            }
            return
        }
        withUnsafeTemporaryAllocation(byteCount: length, alignment: 8) { buffer in
            BinaryEventRecord.encode(event, length: length, into: buffer.baseAddress!)
            write(UnsafeRawBufferPointer(buffer), isEvent: true, isRecord: true)
        }
    }

    /// Encodes `event`, numbered by `ticket`, as a binary record into the calling thread's
    /// chunk; an event the binary form cannot hold is written as a JSON line instead.
    public func appendRecord(_ event: borrowing TraceEvent, in ticket: EventTicket) {
        guard let length = BinaryEventRecord.length(of: event) else { return append(event) }
        if length <= MemoryLayout<RecordStorage>.size {
            var storage = RecordStorage()
            withUnsafeMutableBytes(of: &storage) { buffer in
                BinaryEventRecord.encode(event, length: length, into: buffer.baseAddress!)
                place(UnsafeRawBufferPointer(rebasing: buffer[..<length]), for: ticket)
            }
            return
        }
        withUnsafeTemporaryAllocation(byteCount: length, alignment: 8) { buffer in
            BinaryEventRecord.encode(event, length: length, into: buffer.baseAddress!)
            place(UnsafeRawBufferPointer(buffer), for: ticket)
        }
    }

    /// 64 bytes of stack for a record without text.
    private struct RecordStorage {
        var words = SIMD8<UInt64>()
    }

    /// Appends the binary record of an event without text straight from its fields: the
    /// recorder's hot path, which builds no ``TraceEvent``. Returns false, writing nothing,
    /// for an event with a text (a value description, a failure, a mark) or one the binary form
    /// cannot hold: the caller then appends the ``TraceEvent`` with ``appendRecord(_:)``.
    @inline(__always)
    public func appendRecord(
        _ ticket: EventTicket, time: UInt64, thread: UInt64, queue: UInt32?, phase: TraceEvent.Phase,
        kind: borrowing TraceEvent.Kind, callSite: UInt64?
    ) -> Bool {
        typealias Flag = BinaryEventRecord.Flag
        var code: UInt8
        var first: UInt64
        var second: UInt64?
        var flags: UInt8 = 0
        var demand: UInt64 = 0
        var aliveAt: UInt64 = 0
        switch kind {
        case .subscribe(let publisher, let subscriber):
            (code, first, second) = (0, publisher.rawValue, subscriber.rawValue)
        case .receiveSubscription(let subscriber, let subscription):
            (code, first, second) = (1, subscriber.rawValue, subscription.rawValue)
        case .request(let subscription, let requested):
            guard requested.isEncodable else { return false }
            (code, first, demand) = (2, subscription.rawValue, requested.encoded)
            flags |= Flag.demand
        case .value(_, _, .some):
            return false
        case .value(let subscriber, let returned, .none):
            (code, first) = (3, subscriber.rawValue)
            if let returned {
                guard returned.isEncodable else { return false }
                demand = returned.encoded
                flags |= Flag.demand
            }
        case .completion(let subscriber, .finished):
            (code, first) = (4, subscriber.rawValue)
        case .completion, .mark:
            return false
        case .cancel(let subscription):
            (code, first) = (5, subscription.rawValue)
        case .deallocation(let object, let evidence):
            (code, first) = (6, object.rawValue)
            if case .observed(let seq) = evidence {
                flags |= Flag.observed
                aliveAt = seq
            }
        }
        guard thread <= UInt32.max, first <= UInt32.max, (second ?? 0) <= UInt32.max else { return false }
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        let length = withUnsafeMutableBytes(of: &words) { buffer -> Int in
            let base = buffer.baseAddress!
            var offset = BinaryEventRecord.fixedLength
            if let second {
                base.storeBytes(of: UInt32(truncatingIfNeeded: second).littleEndian, toByteOffset: offset, as: UInt32.self)
                offset += 4
            }
            if let queue {
                flags |= Flag.queue
                base.storeBytes(of: queue.littleEndian, toByteOffset: offset, as: UInt32.self)
                offset += 4
            }
            if flags & Flag.demand != 0 {
                base.storeBytes(of: demand.littleEndian, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            if flags & Flag.observed != 0 {
                base.storeBytes(of: aliveAt.littleEndian, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            if let callSite {
                flags |= Flag.site
                base.storeBytes(of: callSite.littleEndian, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            let length = (offset + 8) & ~7
            let phaseCode: UInt64 = switch phase {
            case .begin: 0
            case .end: 1
            case .instant: 2
            }
            let marker = 0x80 | UInt64(code) << 2 | phaseCode
            base.storeBytes(
                of: (marker | UInt64(flags) << 8 | UInt64(length) << 16 | thread << 32).littleEndian, as: UInt64.self
            )
            base.storeBytes(of: ticket.seq.littleEndian, toByteOffset: 8, as: UInt64.self)
            base.storeBytes(of: time.littleEndian, toByteOffset: 16, as: UInt64.self)
            base.storeBytes(of: UInt32(truncatingIfNeeded: first).littleEndian, toByteOffset: 24, as: UInt32.self)
            base.storeBytes(of: BinaryEventRecord.commitByte, toByteOffset: length - 1, as: UInt8.self)
            return length
        }
        withUnsafeBytes(of: &words) { place(UnsafeRawBufferPointer(rebasing: $0[..<length]), for: ticket) }
        return true
    }

    /// The most bytes an event line without strings takes (see `TraceLineEncoder.capacity(for:)`).
    private static let eventLineCapacity = 256

    /// 256 bytes of stack for an event line: a buffer that, unlike
    /// `withUnsafeTemporaryAllocation`'s, does not make the closure copy the event.
    private struct EventLineStorage {
        var words = SIMD32<UInt64>()
    }

    /// Appends one complete line that is not an event (a declaration or a snapshot). Safe to
    /// call from any thread; never blocks except to grow the file. Lines past the capacity
    /// and lines after ``close(events:neverAppended:)`` are dropped; only dropped events are
    /// counted.
    public func append(_ line: UnsafeRawBufferPointer) {
        write(line, isEvent: false)
    }

    private func write(_ line: UnsafeRawBufferPointer, isEvent: Bool, isRecord: Bool = false) {
        let before = state.add(UInt64(line.count) << Self.inFlightBits | 1, ordering: .acquiringAndReleasing).oldValue
        defer { state.subtract(1, ordering: .releasing) }
        guard before & Self.stoppedBit == 0 else { return }
        let start = Int((before & ~Self.stoppedBit) >> Self.inFlightBits)
        let end = start + line.count
        var grew = false
        guard end <= committedSize.load(ordering: .acquiring) || grow(to: end, grew: &grew) else {
            if isEvent { dropped.add(1, ordering: .relaxed) }
            markFull(at: start)
            return
        }
        if end > lowWater.load(ordering: .relaxed) { growthThread.request() }
        if isRecord {
            copyRecord(line, to: start)
        } else if format == .binary {
            copyPieces(line, 0..<line.count, to: start, inOrder: true)
        } else {
            copy(line, to: start)
        }
        if grew { writeClockLine() }
    }

    /// Copies a binary record so that a kill leaves it absent, torn with its length, or whole
    /// (see `lifeline_store_record`), also when it straddles two mapping windows.
    private func copyRecord(_ record: UnsafeRawBufferPointer, to start: Int) {
        let within = start & (windowSize - 1)
        if within + record.count <= windowSize {
            lifeline_store_record(windows[start >> windowShift]! + within, record.baseAddress!, record.count)
            return
        }
        // Across a window boundary: the first 8 bytes still go first, the later window's share
        // of them before the earlier one's (which holds the marker), and the commit byte last.
        let boundary = windowSize - within
        if boundary < 8 {
            copyPieces(record, boundary..<8, to: start, inOrder: true)
            copyPieces(record, 0..<boundary, to: start, inOrder: true)
        } else {
            copyPieces(record, 0..<8, to: start, inOrder: true)
        }
        copyPieces(record, 8..<(record.count - 1), to: start, inOrder: true)
        copyPieces(record, (record.count - 1)..<record.count, to: start, inOrder: true)
    }

    /// Copies `range` of `bytes` to the same range after `start` in the file, window by window;
    /// `inOrder` copies front to back, so that a kill leaves a prefix.
    private func copyPieces(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, to start: Int, inOrder: Bool) {
        var index = range.lowerBound
        while index < range.upperBound {
            let position = start + index
            let within = position & (windowSize - 1)
            let count = min(range.upperBound - index, windowSize - within)
            let destination = windows[position >> windowShift]! + within
            if inOrder {
                lifeline_copy_forward(destination, bytes.baseAddress! + index, count)
            } else {
                destination.copyMemory(from: bytes.baseAddress! + index, byteCount: count)
            }
            index += count
        }
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
        close(events: { _ in events }, neverAppended: neverAppended)
    }

    /// What the log could not hold, as a sentence for the person recording: how many events
    /// were not written and why (the file system refused to grow the file, or the log reached
    /// its capacity); nil when every event fitted. Final once the log is closed.
    public var shortfall: String? {
        let count = dropped.load(ordering: .relaxed)
        guard count > 0 else { return nil }
        let (failure, limit) = growth.withLock { ($0.failure, $0.limit) }
        let why = failure.map { "the log stopped growing at \(limit) bytes: \($0)" } ?? "the log reached its capacity of \(limit) bytes"
        return "\(count) event\(count == 1 ? " was" : "s were") not written to \(path): \(why)"
    }

    /// Closes a log whose events were numbered by ``beginEvent()``: the end record counts
    /// every number taken before writing stopped, and `neverAppended` more (the ends of calls
    /// still running), which it counts as dropped too.
    public func closeNumbered(neverAppended: UInt64 = 0) {
        close(events: { $0 + neverAppended }, neverAppended: neverAppended)
    }

    private func close(events: (UInt64) -> UInt64, neverAppended: UInt64) {
        Self.openWriters.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(self)) }
        writeClockLine()
        // The end record goes into the room the file keeps past what was written: on a full
        // file system those blocks are already allocated, so it cannot fail for want of space.
        guard let length = stopWriting(waitingAtMost: nil, keeping: Self.closingRoom) else { return }
        let written = TraceLineEncoder.withEndLine(events: events(lastSequence), dropped: dropped.load(ordering: .relaxed) + neverAppended) { line in
            pwrite(descriptor, line.baseAddress, line.count, off_t(length))
        }
        ftruncate(descriptor, off_t(length + max(0, written)))
        Glibc.close(descriptor)
    }

    /// Writes a `clock` line, in a log timed by the time-stamp counter: the last calibration
    /// point, when recording stops.
    private func writeClockLine() {
        guard let clock else { return }
        let reading = clock()
        TraceLineEncoder.withClockLine(tsc: reading.tsc, time: reading.time) { write($0, isEvent: false) }
    }

    /// Closes the log without an end record, cut to what was written, when the process exits
    /// without closing it. Only the process that opened the log does this: a forked child
    /// shares the file and must not cut it under its parent.
    private func trimAtExit() {
        guard getpid() == ownerProcess else { return }
        writeClockLine()
        // A thread that stays inside `append` this long is stuck; leave the file as it is
        // rather than hold up the exit.
        guard stopWriting(waitingAtMost: 2_000_000_000) != nil else { return }
        Glibc.close(descriptor)
    }

    /// Stops all writing, waits for the writers in flight, unmaps the file and cuts it to the
    /// length written, and `room` bytes more for the lines that close it. Returns that length, or nil when the writer was already stopped or the
    /// writers in flight did not finish in time (the file is then left as it is).
    ///
    /// Events stop first: no number is taken after the stop bit, and the threads that took one
    /// before it finish writing theirs (into their chunks, which may still grow the log). Then
    /// every chunk's unused end is filled, except that of the chunk the log ends with, which is
    /// cut off.
    private func stopWriting(waitingAtMost timeout: UInt64?, keeping room: Int = 0) -> Int? {
        let started = monotonicNanoseconds()
        growthThread.stop()
        guard stopNumbering(waitingAtMost: timeout) else { return nil }
        let threadChunks = chunks.withLock { $0.compactMap { UnsafeMutablePointer<lifeline_chunk>(bitPattern: $0) } }
        let before = state.bitwiseOr(Self.stoppedBit, ordering: .sequentiallyConsistent).oldValue
        guard before & Self.stoppedBit == 0 else { return nil }
        let reserved = Int(before >> Self.inFlightBits)
        while state.load(ordering: .sequentiallyConsistent) & Self.inFlightMask > 0 {
            if let timeout, monotonicNanoseconds() - started > timeout { return nil }
            sched_yield()
        }
        let limit = growth.withLock { $0.limit }
        var length = min(reserved, limit, cutoff.load(ordering: .relaxed))
        for chunk in threadChunks where Int(chunk.pointee.end) <= length {
            if Int(chunk.pointee.end) == length {
                length -= Int(chunk.pointee.remaining)
            } else {
                fill(chunk)
            }
        }
        unmapWindows()
        ftruncate(descriptor, off_t(length + room))
        return length
    }

    /// Stops numbering events (``beginEvent()`` returns nil from then on) and waits until every
    /// event numbered before is written: the first step of closing, which the recorder takes on
    /// its own to read settled counters before it closes. Lines can still be appended.
    public func stopNumbering() {
        _ = stopNumbering(waitingAtMost: nil)
    }

    /// ``stopNumbering()``; false when the threads recording did not finish within `timeout`
    /// nanoseconds.
    private func stopNumbering(waitingAtMost timeout: UInt64?) -> Bool {
        let next = lifeline_sequence_set(log, Self.numberingStoppedBit)
        if next & Self.numberingStoppedBit == 0 {
            sequenceAtStop.store(next & ~Self.fullBit, ordering: .relaxed)
        }
        let started = monotonicNanoseconds()
        let threadChunks = chunks.withLock { $0.compactMap { UnsafeMutablePointer<lifeline_chunk>(bitPattern: $0) } }
        for chunk in threadChunks {
            while lifeline_chunk_is_busy(chunk) != 0 {
                if let timeout, monotonicNanoseconds() - started > timeout { return false }
                sched_yield()
            }
        }
        return true
    }

    private func copy(_ line: UnsafeRawBufferPointer, to start: Int) {
        var source = line.baseAddress!
        var position = start
        var remaining = line.count
        while remaining > 0 {
            let within = position & (windowSize - 1)
            let count = min(remaining, windowSize - within)
            (windows[position >> windowShift]! + within).copyMemory(from: source, byteCount: count)
            source += count
            position += count
            remaining -= count
        }
    }

    /// Lets writers write up to at least `end`, growing the file (and mapping the windows it
    /// grows into) when the growth thread has not grown it that far yet. Returns false when the
    /// log may not or cannot grow that far; it then never grows again.
    private func grow(to end: Int) -> Bool {
        var grew = false
        return grow(to: end, grew: &grew)
    }

    /// ``grow(to:)``, saying in `grew` whether this call grew the file.
    private func grow(to end: Int, grew: inout Bool) -> Bool {
        growth.withLock { growth in
            guard end > committedSize.load(ordering: .relaxed) else { return true }
            // The room for the end record stays allocated past every byte writers may write.
            let needed = end + Self.closingRoom
            guard needed <= growth.limit else { return false }
            if needed > growth.length {
                // The smallest step: the writer waits while the file system allocates it.
                guard extend(&growth, to: min(Self.roundUp(needed, to: Self.smallestStep), growth.limit)) else { return false }
                grew = true
            }
            committedSize.store(growth.length - Self.closingRoom, ordering: .releasing)
            return true
        }
    }

    /// One round of the growth thread: grows the file to half a step past what writers have
    /// reserved, faults in the pages not yet faulted in, and then lets writers write up to
    /// there. The next round is asked for a quarter step before that end.
    private func growAhead() {
        let reserved = Int((state.load(ordering: .relaxed) & ~Self.stoppedBit) >> Self.inFlightBits)
        let step = Self.step(toHold: reserved)
        let round = growth.withLock { growth -> (from: Int, to: Int, grew: Bool) in
            let target = min(Self.roundUp(reserved + step / 2, to: Int(getpagesize())), growth.limit)
            let grew = target > growth.length && extend(&growth, to: target)
            return (growth.populated, growth.length, grew)
        }
        populate(from: round.from, to: round.to)
        growth.withLock { growth in
            growth.populated = max(growth.populated, round.to)
            let writable = round.to - Self.closingRoom
            if committedSize.load(ordering: .relaxed) < writable { committedSize.store(writable, ordering: .releasing) }
            lowWater.store(round.to < growth.limit ? round.to - step / 4 : Int.max, ordering: .relaxed)
        }
        if round.grew { writeClockLine() }
    }

    /// Maps the windows up to `size` and sets the file's length to it. On failure, the log may
    /// not grow past its current length any more.
    private func extend(_ growth: inout Growth, to size: Int) -> Bool {
        let neededWindows = (size + windowSize - 1) >> windowShift
        while growth.mappedWindows < neededWindows {
            let index = growth.mappedWindows
            let mapped = mmap(nil, windowSize, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, off_t(index << windowShift))
            guard let mapped, mapped != MAP_FAILED else {
                return fail(&growth, "cannot map it: \(String(cString: strerror(errno)))")
            }
            windows[index] = mapped
            growth.mappedWindows += 1
        }
        if let reason = lengthen(from: growth.length, to: size) { return fail(&growth, reason) }
        growth.length = size
        return true
    }

    /// Sets the file's length to `size` with its blocks allocated, so that a full file system
    /// refuses here, and the log stops growing, rather than with a SIGBUS in whichever traced
    /// thread first writes to a page of a file the file system has no room for. Returns why it
    /// could not, or nil.
    ///
    /// A file system that cannot allocate ahead gets the length alone, as before.
    private func lengthen(from length: Int, to size: Int) -> String? {
        let error = posix_fallocate(descriptor, off_t(length), off_t(size - length))
        switch error {
        case 0:
            return nil
        case ENOSPC, EDQUOT, EFBIG:
            return "cannot grow it: \(String(cString: strerror(error)))"
        default:
            return ftruncate(descriptor, off_t(size)) == 0 ? nil : "cannot grow it: \(String(cString: strerror(errno)))"
        }
    }

    private func fail(_ growth: inout Growth, _ reason: String) -> Bool {
        growth.limit = growth.length
        growth.failure = reason
        return false
    }

    /// Faults the pages from `start` to `end` in, with one call per window rather than one trap
    /// per page. Kernels older than 5.14 refuse the advice; the pages then fault in as they are
    /// written.
    private func populate(from start: Int, to end: Int) {
        var position = start & ~(Int(getpagesize()) - 1)
        while position < end {
            let within = position & (windowSize - 1)
            let count = min(end - position, windowSize - within)
            _ = madvise(windows[position >> windowShift]! + within, count, Self.populateWrite)
            position += count
        }
    }

    private func unmapWindows() {
        growth.withLock { growth in
            for index in 0..<growth.mappedWindows { munmap(windows[index], windowSize) }
            growth.mappedWindows = 0
        }
    }

    /// The growth step for a log of `length` bytes: about an eighth of it, a power of two
    /// between 64 KiB and 4 MiB.
    private static func step(toHold length: Int) -> Int {
        var step = smallestStep
        while step < largestStep && step < length / 8 { step <<= 1 }
        return step
    }

    private static func roundUp(_ value: Int, to multiple: Int) -> Int {
        (value + multiple - 1) / multiple * multiple
    }

    private func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// The writers not yet closed, which the exit handler trims.
    private static let openWriters = Mutex<[ObjectIdentifier: TraceFileWriter]>([:])

    /// Registers, once, the handler that trims the open writers when the process exits.
    private static let exitHandler: Void = {
        atexit {
            let writers = TraceFileWriter.openWriters.withLock { writers in
                defer { writers.removeAll() }
                return Array(writers.values)
            }
            writers.forEach { $0.trimAtExit() }
        }
    }()
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
