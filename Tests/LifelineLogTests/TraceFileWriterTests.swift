import Dispatch
import Foundation
import Testing
@testable import LifelineLog

/// The mapped writer keeps every appended line readable, closed or not.
@Suite struct TraceFileWriterTests {
    let log = SampleLog()

    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(UUID().uuidString).jsonl").path
    }

    func append(_ writer: TraceFileWriter, _ events: some Sequence<TraceEvent>) {
        for event in events { writer.append(event) }
    }

    func declare(_ writer: TraceFileWriter) {
        log.objects.forEach { object in TraceLineEncoder.withLine(for: object) { writer.append($0) } }
        log.threads.forEach { thread in TraceLineEncoder.withLine(for: thread) { writer.append($0) } }
        log.queues.forEach { queue in TraceLineEncoder.withLine(for: queue) { writer.append($0) } }
    }

    @Test func aLogThatWasNeverClosedIsReadableUpToItsLastLine() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try TraceFileWriter(path: path, header: log.header)
        declare(writer)
        append(writer, log.events)
        // Reading now sees what a killed process leaves: the mapped pages, unclosed.
        let trace = try TraceReader.read(contentsOf: path)
        #expect(trace.events == log.events)
        #expect(trace.damage == [.notClosed])
        writer.close(events: UInt64(log.events.count))
        #expect(try TraceReader.read(contentsOf: path).damage.isEmpty)
    }

    /// Writers race across the file's growth steps and, with 64 KiB windows (one line in
    /// about 600 straddles two), across its mapping windows.
    @Test(arguments: [16, 26])
    func concurrentWritersLoseNothingAcrossChunkBoundaries(windowShift: Int) throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try TraceFileWriter(path: path, header: log.header, capacity: 64 << 30, windowShift: windowShift)
        declare(writer)
        let perThread = 20_000
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            let events = (0..<perThread).map { index in
                TraceEvent(seq: UInt64(thread * perThread + index + 1), time: 0, thread: 7, queue: nil, phase: .instant,
                           kind: .mark(label: "writer \(thread) event \(index)"))
            }
            append(writer, events)
        }
        writer.close(events: UInt64(4 * perThread))
        let trace = try TraceReader.read(contentsOf: path)
        #expect(trace.events.map(\.seq) == Array(1...UInt64(4 * perThread)))
        #expect(trace.damage.isEmpty)
    }

    @Test func eventsPastTheCapacityAreDroppedAndCounted() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try TraceFileWriter(path: path, header: log.header, capacity: 2_000)
        declare(writer)
        append(writer, log.events)
        writer.close(events: UInt64(log.events.count))
        let trace = try TraceReader.read(contentsOf: path)
        guard case .droppedEvents(let dropped)? = trace.damage.first else {
            Issue.record("expected dropped events, got \(trace.damage)")
            return
        }
        #expect(dropped > 0)
        #expect(trace.events.count + Int(dropped) == log.events.count)
    }

    /// Marks of about 100 bytes each, numbered from `first`.
    func marks(_ count: Int, from first: Int = 1) -> [TraceEvent] {
        (first..<(first + count)).map { seq in
            TraceEvent(seq: UInt64(seq), time: 0, thread: 7, queue: nil, phase: .instant,
                       kind: .mark(label: "mark \(seq) " + String(repeating: "-", count: 60)))
        }
    }

    func fileLength(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
    }

    /// Polls `condition` for up to 20 seconds: the growth thread works when it is scheduled.
    func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        for _ in 0..<2_000 {
            if try condition() { return true }
            usleep(10_000)
        }
        return try condition()
    }

    /// Once a log passes half its first growth step, its own thread grows the file past the
    /// first step's end, 64 KiB, before any writer gets there (a writer that grew the file
    /// itself would stop at that end).
    @Test func theFileIsGrownAheadOfItsWriters() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try TraceFileWriter(path: path, header: log.header)
        declare(writer)
        let events = marks(400)
        append(writer, events)
        #expect(try eventually { try fileLength(path) > 64 << 10 })
        writer.close(events: 400)
        let trace = try TraceReader.read(contentsOf: path)
        #expect(trace.events == events)
        #expect(trace.damage.isEmpty)
    }

    /// Closing stops the growth thread before it cuts the file: the file keeps its cut length
    /// instead of being grown again, also when the writer closes in the middle of a round.
    @Test func closingStopsTheGrowthThread() throws {
        for _ in 0..<20 {
            let path = temporaryPath()
            defer { try? FileManager.default.removeItem(atPath: path) }
            let writer = try TraceFileWriter(path: path, header: log.header)
            declare(writer)
            append(writer, marks(2_000))
            writer.close(events: 2_000)
            let closed = try fileLength(path)
            usleep(20_000)
            #expect(try fileLength(path) == closed)
            #expect(try TraceReader.read(contentsOf: path).events.count == 2_000)
        }
    }

    /// The growth thread grows the file no further than the capacity, and writers past it drop
    /// their events as they did when they grew the file themselves.
    @Test func theGrowthThreadStaysWithinTheCapacity() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let capacity = 100 << 10
        let writer = try TraceFileWriter(path: path, header: log.header, capacity: capacity)
        declare(writer)
        append(writer, marks(900))
        #expect(try eventually { try fileLength(path) == capacity })
        usleep(50_000)
        #expect(try fileLength(path) == capacity)
        writer.close(events: 900)
        let trace = try TraceReader.read(contentsOf: path)
        guard case .droppedEvents(let dropped)? = trace.damage.first else {
            Issue.record("expected dropped events, got \(trace.damage)")
            return
        }
        #expect(trace.events.count + Int(dropped) == 900)
        #expect(trace.events.map(\.seq) == Array(1...UInt64(trace.events.count)))
    }

    @Test func anUnwritablePathIsAClearError() {
        #expect(throws: TraceWriteError.self) { try TraceFileWriter(path: "/no/such/dir/trace.jsonl", header: log.header) }
    }
}
