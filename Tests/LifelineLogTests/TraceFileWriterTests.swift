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

    @Test func anUnwritablePathIsAClearError() {
        #expect(throws: TraceWriteError.self) { try TraceFileWriter(path: "/no/such/dir/trace.jsonl", header: log.header) }
    }
}
