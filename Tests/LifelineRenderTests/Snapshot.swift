import Foundation
import Testing

/// Compares rendered text with a golden file in `__Snapshots__/` beside this file.
///
/// Set `LIFELINE_RECORD_SNAPSHOTS=1` to write the golden files from the current output
/// instead; recording fails the test so that a recording run never passes unnoticed.
/// Review recorded files by looking at them (open the SVGs, render the Mermaid and PlantUML)
/// before committing.
enum Snapshot {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("__Snapshots__")
    static var isRecording: Bool { ProcessInfo.processInfo.environment["LIFELINE_RECORD_SNAPSHOTS"] == "1" }

    static func assertMatches(_ actual: String, file name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let url = directory.appendingPathComponent(name)
        let rerecord = "Re-record with: LIFELINE_RECORD_SNAPSHOTS=1 swift test --filter LifelineRenderTests, then review the files in Tests/LifelineRenderTests/__Snapshots__/ by looking at them."
        guard !isRecording, let expected = try? String(contentsOf: url, encoding: .utf8) else {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try actual.write(to: url, atomically: true, encoding: .utf8)
                Issue.record("Recorded snapshot \(name). Review it, then run the tests again without LIFELINE_RECORD_SNAPSHOTS.", sourceLocation: sourceLocation)
            } catch {
                Issue.record("Could not write snapshot \(name): \(error)", sourceLocation: sourceLocation)
            }
            return
        }
        guard actual != expected else { return }
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let firstDifference = zip(actualLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(actualLines.count, expectedLines.count)
        let shown = { (lines: [Substring]) in firstDifference < lines.count ? String(lines[firstDifference].prefix(300)) : "(end of file)" }
        Issue.record("""
            \(name) differs from the golden file at line \(firstDifference + 1):
              expected: \(shown(expectedLines))
              actual:   \(shown(actualLines))
            If the change is intended: \(rerecord)
            """, sourceLocation: sourceLocation)
    }
}
