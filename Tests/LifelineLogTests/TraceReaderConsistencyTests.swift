import Foundation
import Testing
@testable import LifelineLog

/// Logs that read without a crash's damage but do not add up are refused or reported, never
/// read as something else in silence; and a path that is no log says so in words.
@Suite struct TraceReaderConsistencyTests {
    let log = SampleLog()

    func lines() -> [String] {
        String(decoding: log.data(), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func data(_ lines: [String]) -> Data {
        Data((lines.joined(separator: "\n") + "\n").utf8)
    }

    @Test func anEndRecordCountingMoreEventsThanTheLogHoldsIsReported() throws {
        var text = lines()
        let events = text.indices.filter { text[$0].hasPrefix("{\"seq\"") }
        text.remove(at: events[4])
        text.remove(at: events[2])
        let trace = try TraceReader.read(data(text))
        let counted = UInt64(log.events.count)
        #expect(trace.damage == [.eventCountMismatch(counted: counted, dropped: 0, found: counted - 2)])
        #expect(trace.damage[0].description == "the end record counts 13 events but the log holds 11: 2 events are missing")
    }

    @Test func aLogHoldingWhatItsEndRecordCountsHasNoDamage() throws {
        #expect(try TraceReader.read(log.data()).damage.isEmpty)
    }

    @Test func anObjectDeclaredAgainAsSomethingElseIsAnError() {
        var text = lines()
        let index = text.firstIndex { $0.contains("\"kind\":\"object\"") }!
        let again = text[index].replacingOccurrences(of: "\"role\":\"publisher\"", with: "\"role\":\"subscriber\"")
        #expect(again != text[index])
        text.insert(again, at: text.count - 1)
        #expect(throws: TraceReadError.conflictingDeclaration(line: text.count - 1, what: "object 1", firstLine: index + 1)) {
            try TraceReader.read(data(text))
        }
    }

    @Test func anObjectDeclaredAgainIdenticallyIsHarmless() throws {
        var text = lines()
        let index = text.firstIndex { $0.contains("\"kind\":\"object\"") }!
        text.insert(text[index], at: text.count - 1)
        #expect(try TraceReader.read(data(text)).objects.count == log.objects.count)
    }

    @Test func aSecondEndRecordIsAnError() {
        var text = lines()
        text.append(text[text.count - 1])
        #expect(throws: TraceReadError.repeatedEndRecord(line: text.count, firstLine: text.count - 1)) {
            try TraceReader.read(data(text))
        }
    }

    @Test(arguments: [String.Encoding.utf16LittleEndian, .utf16BigEndian, .utf16, .utf32LittleEndian])
    func aLogInUTF16OrUTF32IsRefusedNotReadAsNoEvents(_ encoding: String.Encoding) throws {
        let text = String(decoding: log.data(), as: UTF8.self)
        let bytes = try #require(text.data(using: encoding))
        #expect(throws: TraceReadError.notALifelineLog(reason: "it is UTF-16 or UTF-32 text; a Lifeline log is UTF-8")) {
            try TraceReader.read(bytes)
        }
    }

    @Test func aDirectoryIsNamedAsOne() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-dir-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: TraceReadError.unreadable(path: folder.path, reason: "it is a directory, not a log file")) {
            try TraceReader.read(contentsOf: folder.path)
        }
    }

    @Test func devNullIsAnEmptyLogNotAPermissionProblem() {
        #expect(throws: TraceReadError.empty) { try TraceReader.read(contentsOf: "/dev/null") }
    }

    @Test func aLogArrivingThroughAFIFOIsReadToItsEnd() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-fifo-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("trace.jsonl").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let bytes = log.data()
        let writer = Thread {
            if let handle = FileHandle(forWritingAtPath: fifo) {
                handle.write(bytes)
                try? handle.close()
            }
        }
        writer.start()
        let trace = try TraceReader.read(contentsOf: fifo)
        #expect(trace.events.count == log.events.count)
    }
}
