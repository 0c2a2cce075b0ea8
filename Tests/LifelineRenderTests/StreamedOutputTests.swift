import Foundation
import LifelineLog
import Testing
@testable import LifelineRender

/// A Perfetto trace of a million events runs to hundreds of megabytes: it is written as it is
/// made, a megabyte at a time, and the pieces are the bytes the whole document would be.
@Suite struct StreamedOutputTests {
    /// A trace whose Perfetto JSON is a few megabytes: 20,000 values across a thread hop.
    private static let largeTrace = SampleTraces.threadHops(20_000)

    @Test func thePerfettoTraceComesInPiecesThatMakeTheWholeDocument() {
        var pieces: [[UInt8]] = []
        PerfettoTraceRenderer.render(Self.largeTrace) { pieces.append(Array($0)) }
        let whole = PerfettoTraceRenderer.renderUTF8(Self.largeTrace)
        #expect(whole.count > 2 << 20)
        #expect(pieces.count > 1)
        // No piece holds much more than a megabyte: the document is never held whole.
        #expect(pieces.allSatisfy { $0.count < (1 << 20) + 65_536 })
        #expect(Array(pieces.joined()) == whole)
    }

    @Test func aStreamedFileHoldsEveryPieceInOrder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-streamed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("trace.perfetto.json").path
        try "old".write(toFile: path, atomically: false, encoding: .utf8)
        try OutputFile.write(to: path) { emit in PerfettoTraceRenderer.render(Self.largeTrace, to: emit) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(PerfettoTraceRenderer.renderUTF8(Self.largeTrace)))
        // Only the file written: the temporary file it was written to was renamed onto it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["trace.perfetto.json"])
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func aStreamThatCannotBeWrittenFailsInWords() {
        let failure = #expect(throws: OutputFile.Failure.self) {
            try OutputFile.write(to: "/dev/full") { emit in PerfettoTraceRenderer.render(Self.largeTrace, to: emit) }
        }
        #expect(failure?.description == "cannot write /dev/full: no space left on device")
    }
}
