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
        #expect(binary.header.version == TraceHeader.chunkedBinaryVersion)
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
}
