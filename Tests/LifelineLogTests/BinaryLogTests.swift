import Foundation
import Testing
@testable import LifelineLog

/// Version 6 logs: binary event records between JSON lines, read like JSON Lines, exported to
/// JSON Lines byte for byte, and what a kill can leave of them.
@Suite struct BinaryLogTests {
    let log = SampleLog()

    var binaryHeader: TraceHeader {
        let header = log.header
        return TraceHeader(
            version: TraceHeader.binaryVersion, processID: header.processID, processName: header.processName,
            startedAt: header.startedAt, clockOrigin: header.clockOrigin, valueDescriptionLimit: header.valueDescriptionLimit
        )
    }

    func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("binary-\(name)-\(UUID().uuidString).jsonl").path
    }

    /// Writes `events` (the sample's by default) through a writer of `header`'s format, as the
    /// recorder does: declarations as lines, events as records or lines.
    func write(_ header: TraceHeader, events: [TraceEvent]? = nil, closed: Bool = true, windowShift: Int = 26) throws -> Data {
        let path = temporaryPath("log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try TraceFileWriter(path: path, header: header, capacity: 64 << 30, windowShift: windowShift)
        log.objects.forEach { object in TraceLineEncoder.withLine(for: object) { writer.append($0) } }
        log.threads.forEach { thread in TraceLineEncoder.withLine(for: thread) { writer.append($0) } }
        log.queues.forEach { queue in TraceLineEncoder.withLine(for: queue) { writer.append($0) } }
        let events = events ?? log.events
        for event in events {
            if header.format == .binary { writer.appendRecord(event) } else { writer.append(event) }
        }
        if closed {
            writer.close(events: UInt64(events.count))
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
        // What a kill leaves: the mapped pages as they are.
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// Where each record of a binary log begins, by seq.
    func recordOffsets(in data: Data) -> [UInt64: Int] {
        Dictionary(BinaryLogRecords.ranges(in: data).map { (BinaryLogRecords.seq(ofRecordAt: $0, in: data), $0.lowerBound) },
                   uniquingKeysWith: { _, last in last })
    }

    @Test func aBinaryLogReadsAsTheSameJSONLogReads() throws {
        let json = try TraceReader.read(try write(log.header))
        let binary = try TraceReader.read(try write(binaryHeader))
        #expect(binary.header.version == TraceHeader.binaryVersion && json.header.version == TraceHeader.untypedJSONLinesVersion)
        #expect(binary.events == json.events)
        #expect(binary.events == log.events)
        #expect(binary.objects == json.objects)
        #expect(binary.threads == json.threads)
        #expect(binary.queues == json.queues)
        #expect(binary.damage.isEmpty && json.damage.isEmpty)
    }

    @Test func aValueEventTakesAtMost40Bytes() {
        let subscriber = TraceObjectID(123_456)
        let begin = TraceEvent(seq: 1 << 40, time: 1 << 50, thread: 4_000_000, queue: nil, phase: .begin,
                               kind: .value(subscriber: subscriber, returnedDemand: nil, value: nil))
        let end = TraceEvent(seq: 1 << 40, time: 1 << 50, thread: 4_000_000, queue: nil, phase: .end,
                             kind: .value(subscriber: subscriber, returnedDemand: .max(1), value: nil))
        #expect(BinaryEventRecord.length(of: begin) == 32)
        #expect(BinaryEventRecord.length(of: end) == 40)
    }

    @Test func exportGivesTheBytesOfTheJSONRecording() throws {
        let json = try write(log.header)
        let binary = try write(binaryHeader)
        #expect(binary.count < json.count)
        let exported = try TraceExporter.jsonLines(of: binary)
        #expect(String(decoding: exported, as: UTF8.self) == String(decoding: json, as: UTF8.self))
        // A JSON log is exported as it is.
        #expect(try TraceExporter.jsonLines(of: json) == json)
    }

    /// Events the binary form cannot hold are JSON lines among the records, their times
    /// converted like the records'.
    @Test func eventsTooLargeForARecordAreWrittenAsLinesAndReadBack() throws {
        let huge = String(repeating: "mark ", count: 20_000)
        var events = log.events
        events.append(TraceEvent(seq: 14, time: 130, thread: 7, queue: nil, phase: .instant, kind: .mark(label: huge)))
        events.append(TraceEvent(seq: 15, time: 140, thread: 1 << 40, queue: nil, phase: .instant, kind: .mark(label: "wide thread")))
        #expect(BinaryEventRecord.length(of: events[13]) == nil && BinaryEventRecord.length(of: events[14]) == nil)
        var threads = log.threads
        threads.append(TraceThread(tid: 1 << 40, name: "thread 2"))
        let binaryData = try writeWithThreads(threads, events: events)
        let trace = try TraceReader.read(binaryData)
        #expect(trace.events == events)
        let exported = try TraceExporter.jsonLines(of: binaryData)
        #expect(try TraceReader.read(exported).events == events)
    }

    private func writeWithThreads(_ threads: [TraceThread], events: [TraceEvent]) throws -> Data {
        let path = temporaryPath("wide")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try TraceFileWriter(path: path, header: binaryHeader)
        log.objects.forEach { object in TraceLineEncoder.withLine(for: object) { writer.append($0) } }
        threads.forEach { thread in TraceLineEncoder.withLine(for: thread) { writer.append($0) } }
        log.queues.forEach { queue in TraceLineEncoder.withLine(for: queue) { writer.append($0) } }
        events.forEach { writer.appendRecord($0) }
        writer.close(events: UInt64(events.count))
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// A kill in the middle of a record leaves its length and no commit byte: the record is
    /// skipped as damage, and every other event is read.
    @Test func aTornRecordIsDamageAndTheRestIsRead() throws {
        var data = try write(binaryHeader, closed: false)
        let offset = try #require(recordOffsets(in: data)[7])
        let length = Int(data[offset + 2]) | Int(data[offset + 3]) << 8
        data[offset + length - 1] = 0
        data.replaceSubrange((offset + 8)..<(offset + length - 1), with: [UInt8](repeating: 0, count: length - 9))
        let trace = try TraceReader.read(data)
        #expect(trace.events.map(\.seq) == log.events.map(\.seq).filter { $0 != 7 })
        #expect(trace.damage.contains { if case .unwrittenGap = $0 { true } else { false } })
        #expect(trace.damage.contains(.notClosed))
    }

    /// A record reserved and never written is zero bytes: skipped, and said.
    @Test func aZeroedRecordIsAGapAndTheRestIsRead() throws {
        var data = try write(binaryHeader, closed: false)
        let offset = try #require(recordOffsets(in: data)[3])
        let length = Int(data[offset + 2]) | Int(data[offset + 3]) << 8
        data.replaceSubrange(offset..<(offset + length), with: [UInt8](repeating: 0, count: length))
        let trace = try TraceReader.read(data)
        #expect(trace.events.map(\.seq) == log.events.map(\.seq).filter { $0 != 3 })
        #expect(trace.damage.contains { if case .unwrittenGap = $0 { true } else { false } })
    }

    /// In a log closed cleanly, a torn record means bytes were lost after it closed: refused.
    @Test func aTornRecordInAClosedLogIsAnError() throws {
        var data = try write(binaryHeader)
        let offset = try #require(recordOffsets(in: data)[5])
        let length = Int(data[offset + 2]) | Int(data[offset + 3]) << 8
        data[offset + length - 1] = 0
        #expect {
            try TraceReader.read(data)
        } throws: { error in
            "\(error)".contains("zero bytes inside a log that was closed cleanly")
        }
    }

    @Test func aLogCutInTheMiddleOfItsLastRecordIsReadUpToIt() throws {
        let data = try write(binaryHeader, closed: false)
        let offset = try #require(recordOffsets(in: data)[13])
        let trace = try TraceReader.read(data.prefix(offset + 20))
        #expect(trace.events.map(\.seq) == Array(1...12))
        #expect(trace.damage.contains { if case .truncatedFinalLine = $0 { true } else { false } })
    }

    /// A line a kill cut short is no JSON object: export leaves it out, in either format, so
    /// that every line it writes is one, and what it writes reads back the same.
    @Test(arguments: [false, true]) func anExportLeavesOutALineCutShort(binary: Bool) throws {
        let data = try write(binary ? binaryHeader : log.header, closed: false)
        let text = String(decoding: data, as: UTF8.self)
        let queueLine = try #require(text.range(of: "{\"kind\":\"queue\""))
        let cut = data.prefix(text.utf8.distance(from: text.utf8.startIndex, to: queueLine.lowerBound) + 12)
        let exported = try TraceExporter.jsonLines(of: cut)
        let lines = String(decoding: exported, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 1 + log.objects.count + log.threads.count, "the header and the whole declarations")
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "not a JSON object: \(line)")
        }
        let trace = try TraceReader.read(cut), reread = try TraceReader.read(exported)
        #expect(reread.objects == trace.objects && reread.threads == trace.threads)
        #expect(trace.damage.contains(.truncatedFinalLine(line: lines.count + 1)))
        #expect(reread.damage == [.notClosed])
    }

    @Test func aByteThatBeginsNothingIsAnErrorNamingIt() throws {
        var data = try write(binaryHeader)
        let offset = try #require(recordOffsets(in: data)[2])
        data[offset] = UInt8(ascii: "x")
        #expect {
            try TraceReader.read(data)
        } throws: { error in
            "\(error)".contains("neither a JSON line nor a binary record: it begins with the byte 0x78")
        }
    }

    @Test func aRecordWithFieldsPastItsEndIsAnError() throws {
        var data = try write(binaryHeader)
        // seq 7 is a value with a text; say its text is longer than the record.
        let offset = try #require(recordOffsets(in: data)[7])
        data[offset + 28 + 3] = 0x7F
        #expect {
            try TraceReader.read(data)
        } throws: { error in
            "\(error)".contains("field 'text' runs past the end of its binary record")
        }
    }

    /// Records straddle 64 KiB mapping windows, from four threads at once.
    @Test func concurrentRecordsAcrossWindowsAreAllRead() throws {
        let path = temporaryPath("windows")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try TraceFileWriter(path: path, header: binaryHeader, capacity: 64 << 30, windowShift: 16)
        TraceLineEncoder.withLine(for: log.threads[0]) { writer.append($0) }
        let perThread = 20_000
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<perThread {
                writer.appendRecord(TraceEvent(
                    seq: UInt64(thread * perThread + index + 1), time: UInt64(index), thread: 7, queue: nil, phase: .instant,
                    kind: .mark(label: String(repeating: "m", count: index % 23))
                ))
            }
        }
        writer.close(events: UInt64(4 * perThread))
        let trace = try TraceReader.read(contentsOf: path)
        #expect(trace.events.map(\.seq) == Array(1...UInt64(4 * perThread)))
        #expect(trace.damage.isEmpty)
    }

    /// Counter readings convert through the calibration points: exactly on them, linearly
    /// between, along the nearest segment outside, never backwards.
    @Test func ticksConvertToNanosecondsThroughTheCalibrationPoints() {
        let reference = TraceHeader.TickReference(tsc: 1_000, time: 0, perSecond: 2_000_000_000)
        var single = TickConversion(reference: reference, clocks: [])
        #expect(single.time(ofTicks: 1_000) == 0)
        #expect(single.time(ofTicks: 3_000) == 1_000)
        #expect(single.time(ofTicks: 10) == 0)
        var conversion = TickConversion(reference: reference, clocks: [
            .init(tsc: 2_001_000, time: 1_000_000), .init(tsc: 4_001_000, time: 1_900_000), .init(tsc: 3_000, time: 0),
        ])
        #expect(conversion.time(ofTicks: 2_001_000) == 1_000_000)
        #expect(conversion.time(ofTicks: 1_001_000) == 500_000)
        #expect(conversion.time(ofTicks: 3_001_000) == 1_450_000)
        #expect(conversion.time(ofTicks: 6_001_000) == 2_800_000)
        var previous: UInt64 = 0
        for tsc in stride(from: UInt64(0), to: 7_000_000, by: 997) {
            let time = conversion.time(ofTicks: tsc)
            #expect(time >= previous)
            previous = time
        }
        var identity = TickConversion(reference: nil, clocks: [])
        #expect(identity.time(ofTicks: 12_345) == 12_345)
    }

    /// A log timed by the counter converts its records' times through the header and its clock
    /// lines, and exports them as nanoseconds.
    @Test func aLogTimedByTheCounterReadsInNanoseconds() throws {
        let header = TraceHeader(
            version: TraceHeader.binaryVersion, processID: 1, processName: "clocked", startedAt: "2026-11-23T08:00:00Z", clockOrigin: 5,
            valueDescriptionLimit: nil, ticks: .init(tsc: 10_000, time: 100, perSecond: 3_000_000_000)
        )
        let path = temporaryPath("ticks")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try TraceFileWriter(path: path, header: header, clock: { (tsc: 3_010_000, time: 1_000_100) })
        TraceLineEncoder.withLine(for: log.threads[0]) { writer.append($0) }
        for (index, tsc) in [10_000, 1_510_000, 3_010_000, 6_010_000].enumerated() {
            writer.appendRecord(TraceEvent(seq: UInt64(index + 1), time: UInt64(tsc), thread: 7, queue: nil, phase: .instant, kind: .mark(label: "m")))
        }
        writer.close(events: 4)
        let trace = try TraceReader.read(contentsOf: path)
        #expect(trace.events.map(\.time) == [100, 500_100, 1_000_100, 2_000_100])
        let exported = String(decoding: try TraceExporter.jsonLines(of: Data(contentsOf: URL(fileURLWithPath: path))), as: UTF8.self)
        #expect(exported.contains("\"seq\":4,\"t\":2000100,"))
        #expect(!exported.contains("\"kind\":\"clock\"") && !exported.contains("ticks"))
    }
}
