import Foundation
import Testing
@testable import LifelineLog

/// The reader tolerates what a crash leaves, and names the line of anything else.
@Suite struct TraceReaderDamageTests {
    let log = SampleLog()

    func lines(_ data: Data) -> [String] {
        String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    func data(_ lines: [String]) -> Data {
        Data(lines.joined(separator: "\n").utf8)
    }

    @Test func aTruncatedFinalLineIsSkippedAndReported() throws {
        var text = lines(log.data(closed: false))
        text.removeLast()
        let last = text.removeLast()
        text.append(String(last.prefix(last.count / 2)))
        let trace = try TraceReader.read(data(text))
        #expect(trace.events.count == log.events.count - 1)
        #expect(trace.damage.contains(.truncatedFinalLine(line: text.count)))
        #expect(trace.damage.contains(.notClosed))
    }

    @Test func zeroFilledTailOfAnUnclosedMappedLogIsTolerated() throws {
        var bytes = log.data(closed: false)
        bytes.append(Data(count: 4096))
        let trace = try TraceReader.read(bytes)
        #expect(trace.events.count == log.events.count)
        #expect(trace.damage == [.notClosed])
    }

    @Test func aCorruptLineInTheMiddleIsAnErrorNamingIt() {
        var text = lines(log.data())
        text[5] = "{\"seq\": 3, oops"
        #expect(throws: TraceReadError.malformedLine(line: 6, reason: "invalid JSON: expected a key at byte 12")) { try TraceReader.read(data(text)) }
    }

    @Test func anUnknownVersionIsRefused() {
        var text = lines(log.data())
        text[0] = text[0].replacingOccurrences(of: "\"version\":\(TraceHeader.untypedJSONLinesVersion)", with: "\"version\":99")
        #expect(throws: TraceReadError.unsupportedVersion(found: 99, supported: TraceHeader.currentVersion)) { try TraceReader.read(data(text)) }
    }

    @Test func aMissingFieldIsNamed() {
        var text = lines(log.data())
        let index = text.firstIndex { $0.contains("\"kind\":\"request\"") }!
        text[index] = text[index].replacingOccurrences(of: ",\"demand\":2", with: "")
        #expect(throws: TraceReadError.badField(line: index + 1, field: "demand", reason: "is missing")) {
            try TraceReader.read(data(text))
        }
    }

    /// Combine has no negative demand, and no count past `Int.max`: such a line is refused,
    /// not read as `max(-1)` or rounded.
    @Test(arguments: ["-1", "9223372036854775808", "1.5", "\"many\"", "null"])
    func aDemandThatIsNotACountIsNamed(demand: String) {
        var text = lines(log.data())
        let index = text.firstIndex { $0.contains("\"kind\":\"request\"") }!
        text[index] = text[index].replacingOccurrences(of: "\"demand\":2", with: "\"demand\":\(demand)")
        #expect(throws: TraceReadError.badField(
            line: index + 1, field: "demand", reason: "must be a count from 0 to \(Int.max) or \"unlimited\""
        )) { try TraceReader.read(data(text)) }
    }

    /// A declaration lost to a kill costs what it said, not the log: the events that name the
    /// object are kept, and it reads as an object of unknown type, in the role they give it.
    @Test func anUndeclaredObjectIsAPlaceholderOfUnknownTypeAndAWarning() throws {
        var text = lines(log.data())
        let index = text.firstIndex { $0.contains("\"kind\":\"cancel\"") }!
        text[index] = text[index].replacingOccurrences(of: "\"subscription\":3", with: "\"subscription\":77")
        let trace = try TraceReader.read(data(text))
        #expect(trace.events.count == log.events.count)
        let placeholder = try #require(trace.object(TraceObjectID(77)))
        #expect(placeholder.typeName == "unknown" && placeholder.shortTypeName == "unknown")
        #expect(placeholder.role == .subscription)
        #expect(!placeholder.lifetimeTracked)
        #expect(trace.damage == [.undeclaredObject(TraceObjectID(77), events: 1, snapshots: 0)])
        #expect(trace.damage.map(\.description) == [
            "object 77 is used but never declared (its declaration was lost, as when a recording is killed while writing it): "
                + "1 event names it; it is shown as an object of unknown type",
        ])
    }

    /// The declarations of a thread and a queue can be lost the same way; their events stay.
    @Test func anUndeclaredThreadOrQueueIsNamedUnknown() throws {
        let text = lines(log.data()).filter { !$0.contains("\"kind\":\"thread\",\"tid\":9,") && !$0.contains("\"kind\":\"queue\"") }
        #expect(text.count == lines(log.data()).count - 2, "the thread 9 and queue lines are gone")
        let trace = try TraceReader.read(data(text))
        #expect(trace.events.count == log.events.count)
        #expect(trace.threads[9]?.name == "unknown thread 9")
        #expect(trace.queues[1]?.label == "unknown queue 1")
        let onThread9 = log.events.filter { $0.thread == 9 }.count
        #expect(trace.damage == [.undeclaredThread(9, events: onThread9), .undeclaredQueue(1, events: 1)])
        #expect(trace.damage.first?.description.contains("thread 9 is used but never declared") == true)
        #expect(trace.damage.first?.description.contains("\(onThread9) events ran on it") == true)
    }

    @Test func somethingElseEntirelyIsNotALifelineLog() {
        #expect(throws: TraceReadError.notALifelineLog(reason: "its 'format' is not \"lifeline-trace\"")) {
            try TraceReader.read(Data("{\"format\":\"chrome\"}\n".utf8))
        }
        #expect(throws: TraceReadError.empty) { try TraceReader.read(Data()) }
        #expect(throws: TraceReadError.unreadable(path: "/no/such/trace.jsonl", reason: "no such file")) {
            try TraceReader.read(contentsOf: "/no/such/trace.jsonl")
        }
    }

    /// No log holds tens of MiB of zero bytes in a row (a killed recording leaves a few MiB at
    /// most): such a file is refused while it is read, in words, rather than read whole.
    @Test func aRunOfZeroBytesLongerThanAnyLogLeavesIsRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-zeros-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("zeros.lifeline").path
        let head = log.data(closed: false)
        // A hole: the file system stores no zeros, the reader reads them all the same.
        FileManager.default.createFile(atPath: path, contents: head)
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try file.truncate(atOffset: UInt64(head.count + LogFile.longestZeroRun + 1))
        try file.seekToEnd()
        try file.write(contentsOf: Data("{\"kind\":\"end\",\"events\":13,\"dropped\":0}\n".utf8))
        try file.close()
        #expect(throws: TraceReadError.unreadable(path: path, reason: "it holds more than 64 MiB of zero bytes in a row, more "
            + "than any log leaves unwritten: it is not a log (an endless input such as /dev/zero?)")) {
            try TraceReader.read(contentsOf: path)
        }
        // As many zeros as a killed recording can leave are read as its unwritten end.
        try FileHandle(forWritingTo: URL(fileURLWithPath: path)).truncate(atOffset: UInt64(head.count + (4 << 20)))
        #expect(try TraceReader.read(contentsOf: path).events.count == log.events.count)
    }
}
