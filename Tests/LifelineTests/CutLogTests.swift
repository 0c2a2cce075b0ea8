import Dispatch
import Foundation
import Lifeline
import OpenCombineShim
import Testing
@testable import LifelineLog

extension RecordingTests {
    /// A log cut off where any of its records or lines ends (what a kill leaves, or a copy that
    /// stopped short) reads, with every event before the cut: a declaration the cut left out
    /// costs what it said, not the log.
    ///
    /// A thread writes its binary records into a chunk it reserved before the lines that
    /// declare the objects those records name, so most cuts of a binary log leave objects
    /// named and not declared.
    @Suite struct CutLogTests {
        /// The log of a small program, recorded in `format`: two pipelines, values sent from
        /// this thread and from a queue, a cancel, and the snapshot at stop.
        func recordedLog(_ format: TraceLogFormat) throws -> Data {
            let folder = try RecordingChild.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("cut.lifeline").path
            _ = try Lifeline.record(options: RecordingOptions(logFormat: format), keepingLogAt: path) {
                let subject = PassthroughSubject<Int, Never>()
                let doubled = subject.map { $0 * 2 }.filter { $0 % 3 != 0 }.sink { _ in }
                for value in 0..<8 { subject.send(value) }
                DispatchQueue(label: "lifeline.tests.cut").sync {
                    for value in 8..<16 { subject.send(value) }
                }
                let single = Just(5).map { $0 + 1 }.sink { _ in }
                doubled.cancel()
                single.cancel()
            }
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }

        /// Reads `bytes` cut after each of `ends` (byte offsets), and checks that each cut reads
        /// with exactly the events before it, every object they name resolved. Returns how many
        /// cuts lost a declaration.
        func checkEveryCut(of bytes: Data, at ends: [(offset: Int, isEvent: Bool)], format: String) throws -> Int {
            let whole = try TraceReader.read(bytes)
            let wholeEvents = Dictionary(uniqueKeysWithValues: whole.events.map { ($0.seq, $0) })
            var eventsBefore = 0
            var lostDeclarations = 0
            for end in ends {
                if end.isEvent { eventsBefore += 1 }
                let trace: Trace
                do {
                    trace = try TraceReader.read(bytes.prefix(end.offset))
                } catch {
                    Issue.record("\(format) log cut after byte \(end.offset) of \(bytes.count) is refused: \(error)")
                    continue
                }
                #expect(trace.events.count == eventsBefore, "\(format) log cut after byte \(end.offset)")
                for event in trace.events {
                    let original = wholeEvents[event.seq]
                    #expect(original?.kind == event.kind && original?.phase == event.phase && original?.thread == event.thread,
                            "\(format) log cut after byte \(end.offset): event \(event.seq)")
                    event.kind.forEachObject { #expect(trace.object($0) != nil) }
                }
                if trace.damage.contains(where: { if case .undeclaredObject = $0 { true } else { false } }) {
                    lostDeclarations += 1
                }
            }
            return lostDeclarations
        }

        @Test func aBinaryLogCutAtAnyRecordBoundaryReadsWithTheEventsBeforeTheCut() throws {
            let bytes = try recordedLog(.binary)
            let ends = try bytes.withUnsafeBytes { raw throws(TraceReadError) -> [(offset: Int, isEvent: Bool)] in
                let buffer = raw.bindMemory(to: UInt8.self)
                let headerEnd = TraceReader.lineEnd(in: buffer, from: 0)
                var length = buffer.count
                while length > 0 && buffer[length - 1] == 0 { length -= 1 }
                let content = UnsafeBufferPointer(rebasing: buffer[..<length])
                var ends: [(offset: Int, isEvent: Bool)] = [(headerEnd + 1, false)]
                try BinaryLogLayout.forEachPart(in: content, from: headerEnd + 1, chunked: true) { part, _ throws(TraceReadError) in
                    switch part {
                    case .record(let range):
                        ends.append((range.upperBound, true))
                    case .line(let range):
                        let isEvent = content[range].starts(with: Array("{\"seq\":".utf8))
                        ends.append((range.upperBound + 1, isEvent))
                    case .unterminatedLine, .damage, .unwritten:
                        Issue.record("a log recorded and stopped has no damage: \(part)")
                    }
                }
                return ends
            }
            let eventCount = try TraceReader.read(bytes).events.count
            #expect(ends.filter(\.isEvent).count == eventCount)
            let lost = try checkEveryCut(of: bytes, at: ends, format: "binary")
            // Records go into a chunk reserved before the declarations of what they name.
            #expect(lost > 0, "no cut of the binary log left an object undeclared: the test no longer tests that")
        }

        @Test func aJSONLinesLogCutAtAnyLineBoundaryReadsWithTheEventsBeforeTheCut() throws {
            let bytes = try recordedLog(.jsonLines)
            var ends: [(offset: Int, isEvent: Bool)] = []
            var start = 0
            for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
                ends.append((index + 1, bytes[start..<index].starts(with: Array("{\"seq\":".utf8))))
                start = index + 1
            }
            let eventCount = try TraceReader.read(bytes).events.count
            #expect(ends.filter(\.isEvent).count == eventCount)
            _ = try checkEveryCut(of: bytes, at: ends, format: "JSON Lines")
        }
    }
}
