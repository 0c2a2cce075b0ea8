import Foundation
import Lifeline
import LifelineLog
import OpenCombineShim
import Testing

/// `lifeline export`: a binary log as JSON Lines, which every command reads the same way.
@Suite("lifeline export", .serialized)
struct ExportCommandTests {
    /// A binary log of a small pipeline, kept in a fresh folder.
    static func binaryLog() throws -> String {
        let folder = try LifelineExecutable.temporaryFolder()
        let path = folder.appendingPathComponent("binary.jsonl").path
        let subject = PassthroughSubject<Int, Never>()
        _ = try Lifeline.record(options: RecordingOptions(valueDescriptionLimit: 20), keepingLogAt: path) {
            let cancellable = subject.map { $0 + 1 }.sink { _ in }
            for value in 0..<20 { subject.send(value) }
            cancellable.cancel()
        }
        return path
    }

    @Test func aBinaryLogIsExportedAsJSONLinesThatReadAndDiagnoseTheSame() throws {
        let log = try Self.binaryLog()
        let binary = try TraceReader.read(contentsOf: log)
        #expect(binary.header.version == TraceHeader.currentBinaryVersion)
        let exported = URL(fileURLWithPath: log).deletingLastPathComponent().appendingPathComponent("exported.jsonl").path
        let run = try LifelineExecutable.run(["export", log, "-o", exported])
        #expect(run.status == 0, "\(run.standardError)")
        let text = try String(contentsOfFile: exported, encoding: .utf8)
        #expect(text.hasPrefix("{\"format\":\"lifeline-trace\",\"version\":\(TraceHeader.jsonLinesVersion),"))
        #expect(text.split(separator: "\n").allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") })
        let json = try TraceReader.read(contentsOf: exported)
        #expect(json.events == binary.events)
        #expect(json.objects == binary.objects)
        #expect(try LifelineExecutable.run(["export", log]).standardOutput == Data(contentsOf: URL(fileURLWithPath: exported)))
        let fromBinary = try LifelineExecutable.run(["diagnose", log, "--format", "json"])
        let fromJSON = try LifelineExecutable.run(["diagnose", exported, "--format", "json"])
        #expect(fromBinary.standardOutput == fromJSON.standardOutput)
        #expect(fromBinary.status == fromJSON.status)
    }

    @Test func aDamagedLogIsNotExported() throws {
        let log = try Self.binaryLog()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: log))
        // The first record's commit byte: a torn record in a log closed cleanly.
        let start = try #require(bytes.firstIndex { $0 >= 0x80 && $0 <= 0x9E })
        let length = Int(bytes[start + 2]) | Int(bytes[start + 3]) << 8
        bytes[start + length - 1] = 0
        try bytes.write(to: URL(fileURLWithPath: log))
        let run = try LifelineExecutable.run(["export", log])
        #expect(run.status == 2)
        #expect(run.standardError.contains("zero bytes inside a log that was closed cleanly"), "\(run.standardError)")
        #expect(run.standardOutput.isEmpty)
    }

    /// A killed JSON Lines recording (a line torn by unwritten zero bytes, a cut last line) is
    /// exported as the reader reads it: valid JSON Lines that read back with the same events,
    /// each damage a warning, exit status 0.
    @Test func aKilledJSONLinesLogIsExportedAsWhatTheReaderRead() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("killed.jsonl").path
        let subject = PassthroughSubject<Int, Never>()
        _ = try Lifeline.record(options: RecordingOptions(logFormat: .jsonLines), keepingLogAt: log) {
            let cancellable = subject.map { $0 + 1 }.sink { _ in }
            for value in 0..<20 { subject.send(value) }
            cancellable.cancel()
        }
        var lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        lines.removeLast()  // the end record: the process was killed
        let torn = try #require(lines.lastIndex { $0.hasPrefix("{\"seq\":") && $0.count > 40 })
        // A writer killed halfway through its line: the rest of its bytes were never written.
        lines[torn] = String(lines[torn].prefix(20)) + String(repeating: "\u{0}", count: lines[torn].count - 20)
        let damaged = lines.joined(separator: "\n") + "\n" + "{\"seq\":999,\"t\":5,\"ti"
        try Data(damaged.utf8).write(to: URL(fileURLWithPath: log))
        let read = try TraceReader.read(contentsOf: log)

        let exported = folder.appendingPathComponent("exported.jsonl").path
        let run = try LifelineExecutable.run(["export", log, "-o", exported])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("warning: \(log): line \(torn + 1) holds unwritten bytes"), "\(run.standardError)")
        #expect(run.standardError.contains("warning: \(log): line \(lines.count + 1) is truncated"), "\(run.standardError)")
        let text = try String(contentsOfFile: exported, encoding: .utf8)
        #expect(text.hasSuffix("\n") && !text.contains("\u{0}"))
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "not a JSON object: \(line)")
        }
        let reread = try TraceReader.read(contentsOf: exported)
        #expect(reread.events == read.events)
        #expect(reread.objects == read.objects)
        #expect(reread.damage == [.notClosed], "the export holds no torn or cut line: \(reread.damage)")
    }
}
