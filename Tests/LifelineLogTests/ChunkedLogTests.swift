import Foundation
import Synchronization
import Testing
@testable import LifelineLog

/// Version 7 logs: each thread writes its records into a chunk of the log it reserved, fills the
/// chunk's unused end when recording stops, and leaves it zero when the process is killed.
@Suite struct ChunkedLogTests {
    let log = SampleLog()

    var header: TraceHeader {
        TraceHeader(
            version: TraceHeader.chunkedBinaryVersion, processID: 1, processName: "chunked", startedAt: "2026-11-24T01:00:00Z",
            clockOrigin: 0, valueDescriptionLimit: nil
        )
    }

    /// What a chunked log holds: its bytes, and each event written, by seq.
    struct Written {
        var data: Data
        var events: [UInt64: TraceEvent]
    }

    /// `threads` threads each record `perThread` marks through a writer with chunks of
    /// `chunkSize` bytes, as the recorder does (a sequence number per event from the writer);
    /// the log is closed, or left as a kill leaves it.
    func write(
        threads: Int, perThread: Int, chunkSize: Int = 256, capacity: Int = 64 << 30, windowShift: Int = 26, closed: Bool
    ) throws -> Written {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chunked-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try TraceFileWriter(path: path, header: header, capacity: capacity, windowShift: windowShift, chunkSize: chunkSize)
        TraceLineEncoder.withLine(for: log.threads[0]) { writer.append($0) }
        let written = Mutex<[UInt64: TraceEvent]>([:])
        // Threads of their own: `concurrentPerform` may run every iteration on one thread.
        let group = DispatchGroup()
        for thread in 0..<threads {
            group.enter()
            Thread {
                record(thread)
                group.leave()
            }.start()
        }
        group.wait()
        @Sendable func record(_ thread: Int) {
            var mine: [UInt64: TraceEvent] = [:]
            for index in 0..<perThread {
                guard let ticket = writer.beginEvent() else { continue }
                let event = TraceEvent(
                    seq: ticket.seq, time: UInt64(index), thread: 7, queue: nil, phase: .instant,
                    kind: .mark(label: "t\(thread) " + String(repeating: "m", count: index % 13))
                )
                writer.appendRecord(event, in: ticket)
                writer.endEvent(ticket)
                mine[ticket.seq] = event
            }
            written.withLock { $0.merge(mine) { first, _ in first } }
        }
        let events = written.withLock { $0 }
        if closed {
            writer.closeNumbered()
            return Written(data: try Data(contentsOf: URL(fileURLWithPath: path)), events: events)
        }
        // What a kill leaves: the mapped pages as they are.
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        writer.closeNumbered()
        return Written(data: data, events: events)
    }

    /// Many threads' chunks interleave in the file; the reader gives every event in seq order,
    /// and the stop filled every chunk's unused end, so the log reads without damage. With 64 KiB
    /// mapping windows, some chunks straddle two windows (their records are copied piece by
    /// piece rather than through the chunk's cursor).
    @Test(arguments: [16, 26])
    func threadsInterleavingChunksReadBackInSeqOrder(windowShift: Int) throws {
        let written = try write(threads: 8, perThread: 2_000, chunkSize: 1_000, windowShift: windowShift, closed: true)
        let trace = try TraceReader.read(written.data)
        #expect(trace.damage.isEmpty)
        #expect(trace.events.map(\.seq) == Array(1...16_000))
        #expect(trace.events.allSatisfy { written.events[$0.seq] == $0 })
        let fileOrder = BinaryLogRecords.ranges(in: written.data).map { BinaryLogRecords.seq(ofRecordAt: $0, in: written.data) }
        #expect(fileOrder.count == 16_000)
        #expect(fileOrder != fileOrder.sorted(), "the threads' chunks did not interleave")
        #expect(written.data.contains(BinaryEventRecord.fillerByte))
    }

    /// A stop fills the unused ends of the chunks with filler bytes, so that zero bytes in a
    /// closed log are damage: a log whose filler was zeroed is refused.
    @Test func aStopFillsChunkEndsAndZeroesInAClosedLogAreRefused() throws {
        let written = try write(threads: 2, perThread: 300, closed: true)
        let ranges = BinaryLogRecords.ranges(in: written.data)
        // The filler after some record, before the next part.
        let gap = try #require(zip(ranges, ranges.dropFirst()).first {
            $0.upperBound < $1.lowerBound && written.data[$0.upperBound] == BinaryEventRecord.fillerByte
        })
        var data = written.data
        let fillerEnd = data[gap.0.upperBound...].firstIndex { $0 != BinaryEventRecord.fillerByte }!
        data.replaceSubrange(gap.0.upperBound..<fillerEnd, with: [UInt8](repeating: 0, count: fillerEnd - gap.0.upperBound))
        #expect {
            try TraceReader.read(data)
        } throws: { error in
            "\(error)".contains("zero bytes inside a log that was closed cleanly")
        }
    }

    /// A killed recording leaves each thread's chunk partly filled and zero after: every event
    /// written is read, and the zero ends are not reported as damage (nothing was lost there).
    @Test func aKilledLogWithPartlyFilledChunksReadsEveryWrittenEvent() throws {
        let written = try write(threads: 4, perThread: 777, closed: false)
        let trace = try TraceReader.read(written.data)
        #expect(trace.damage == [.notClosed])
        #expect(trace.events.map(\.seq) == Array(1...UInt64(4 * 777)))
        #expect(trace.events.allSatisfy { written.events[$0.seq] == $0 })
        let ranges = BinaryLogRecords.ranges(in: written.data)
        #expect(zip(ranges, ranges.dropFirst()).contains { $0.upperBound < $1.lowerBound && written.data[$0.upperBound] == 0 },
                "no chunk was left partly filled")
        let exported = try TraceExporter.jsonLines(of: written.data)
        #expect(try TraceReader.read(exported).events == trace.events)
    }

    /// A log cut at every byte offset across several chunks, or with a thread's chunk written
    /// only up to any byte offset (its record there torn as a kill tears it: its first 8 bytes
    /// all or nothing, its commit byte last), never misreads: every event read is one that was
    /// written, every record before the cut is read, and the damage is only what a kill says.
    @Test func aLogCutAtEveryByteOffsetNeverMisreads() throws {
        let written = try write(threads: 1, perThread: 40, chunkSize: 256, closed: false)
        let ranges = BinaryLogRecords.ranges(in: written.data)
        try #require(ranges.count == 40)
        let allowed: (TraceDamage) -> Bool = { damage in
            switch damage {
            case .notClosed, .unwrittenGap, .truncatedFinalLine: true
            default: false
            }
        }
        // The end of the written part of the chunk each record is in.
        var regionEnd: [Int] = Array(repeating: 0, count: ranges.count)
        for index in ranges.indices.reversed() {
            let continues = index + 1 < ranges.count && ranges[index + 1].lowerBound == ranges[index].upperBound
            regionEnd[index] = continues ? regionEnd[index + 1] : ranges[index].upperBound
        }
        #expect(Set(regionEnd).count > 5, "the records did not span several chunks")
        for (index, range) in ranges.enumerated() {
            for offset in range {
                let context = "cut at byte \(offset), inside record \(index)"
                let cut = try TraceReader.read(written.data.prefix(offset))
                #expect(cut.damage.allSatisfy(allowed), "\(context): \(cut.damage)")
                #expect(cut.events.allSatisfy { written.events[$0.seq] == $0 }, "\(context)")
                #expect(cut.events.map(\.seq) == ranges[..<index].map { BinaryLogRecords.seq(ofRecordAt: $0, in: written.data) }.sorted(), "\(context)")

                let zeroFrom = offset < range.lowerBound + 8 ? range.lowerBound : offset
                var torn = written.data
                torn.replaceSubrange(zeroFrom..<regionEnd[index], with: [UInt8](repeating: 0, count: regionEnd[index] - zeroFrom))
                let read = try TraceReader.read(torn)
                let survivors = ranges.filter { $0.upperBound <= zeroFrom || $0.lowerBound >= regionEnd[index] }
                #expect(read.damage.allSatisfy(allowed), "\(context), torn: \(read.damage)")
                #expect(read.events.allSatisfy { written.events[$0.seq] == $0 }, "\(context), torn")
                #expect(read.events.map(\.seq) == survivors.map { BinaryLogRecords.seq(ofRecordAt: $0, in: written.data) }.sorted(), "\(context), torn")
            }
        }
    }

    /// A log that may not grow drops the events whose chunk it cannot hold, and its end record
    /// counts every number taken: the events read and the ones it says were dropped add up.
    @Test func eventsPastTheCapacityAreDroppedAndCounted() throws {
        let written = try write(threads: 4, perThread: 500, capacity: 8_192, closed: true)
        let trace = try TraceReader.read(written.data)
        guard case .droppedEvents(let dropped)? = trace.damage.first else {
            Issue.record("expected dropped events, got \(trace.damage)")
            return
        }
        #expect(dropped > 0)
        #expect(trace.events.count + Int(dropped) == 2_000)
        #expect(trace.events.allSatisfy { written.events[$0.seq] == $0 })
        #expect(written.data.count <= 8_192 + 512)
    }

    /// A thread that records into one log, then into another while the first is still open,
    /// then into the first again, and finally into a log opened after the first is gone, writes
    /// each event into the log that numbered it: a chunk belongs to its writer, never to the
    /// thread's previous one.
    @Test func aThreadWritingToSeveralLogsKeepsEachEventInItsOwnLog() throws {
        let paths = (0..<3).map { FileManager.default.temporaryDirectory.appendingPathComponent("chunked-\($0)-\(UUID().uuidString).log").path }
        defer { paths.forEach { try? FileManager.default.removeItem(atPath: $0) } }
        func open(_ path: String) throws -> TraceFileWriter {
            let writer = try TraceFileWriter(path: path, header: header, capacity: 64 << 30, windowShift: 26, chunkSize: 256)
            TraceLineEncoder.withLine(for: log.threads[0]) { writer.append($0) }
            return writer
        }
        func record(_ count: Int, _ label: String, into writer: TraceFileWriter) {
            for _ in 0..<count {
                guard let ticket = writer.beginEvent() else { return }
                let event = TraceEvent(seq: ticket.seq, time: 0, thread: 7, queue: nil, phase: .instant, kind: .mark(label: label))
                writer.appendRecord(event, in: ticket)
                writer.endEvent(ticket)
            }
        }
        do {
            let first = try open(paths[0])
            let second = try open(paths[1])
            record(30, "first", into: first)
            record(40, "second", into: second)
            record(30, "first", into: first)
            second.closeNumbered()
            first.closeNumbered()
        }
        let third = try open(paths[2])
        record(25, "third", into: third)
        third.closeNumbered()
        for (path, (label, count)) in zip(paths, [("first", 60), ("second", 40), ("third", 25)]) {
            let trace = try TraceReader.read(contentsOf: path)
            #expect(trace.damage.isEmpty, "\(label): \(trace.damage)")
            #expect(trace.events.map(\.seq) == Array(1...UInt64(count)), "\(label)")
            #expect(trace.events.allSatisfy { $0.kind == .mark(label: label) }, "\(label)")
        }
    }

    /// Once a line cannot be written because the log may not grow, no event is written after
    /// it, not even into the room left in its thread's chunk: the line may declare an object the
    /// event names. The event is counted as dropped.
    @Test func noEventIsWrittenAfterALineThatDidNotFit() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chunked-full-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try TraceFileWriter(path: path, header: header, capacity: 8_192, windowShift: 26, chunkSize: 1_024)
        TraceLineEncoder.withLine(for: log.threads[0]) { writer.append($0) }
        func mark(_ label: String) {
            guard let ticket = writer.beginEvent() else { return }
            writer.appendRecord(TraceEvent(seq: ticket.seq, time: 0, thread: 7, queue: nil, phase: .instant, kind: .mark(label: label)), in: ticket)
            writer.endEvent(ticket)
        }
        mark("before")
        TraceLineEncoder.withLine(for: TraceThread(tid: 8, name: String(repeating: "n", count: 10_000))) { writer.append($0) }
        mark("after")
        writer.closeNumbered()
        let trace = try TraceReader.read(contentsOf: path)
        #expect(trace.events.map(\.kind) == [.mark(label: "before")])
        #expect(trace.damage == [.droppedEvents(1)])
    }
}
