import Foundation
import Testing

/// The reproducers of issue 13, kept in Fuzz/Corpus as the fuzz harness's seeds, run through
/// the commands a user runs.
@Suite struct ReproducerTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    static func path(_ name: String) -> String {
        corpus.appendingPathComponent(name).path
    }

    /// Whether `text` holds a character a terminal acts on, other than the line feed.
    static func hasTerminalControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(scalar.value)
                || [0x2028, 0x2029, 0x202E, 0x200F].contains(scalar.value)
        }
    }

    @Test func aTimelineWithMoreEndsThanBeginsIsPrinted() throws {
        let run = try LifelineExecutable.run(["timeline", "--no-times", Self.path("unbalanced-nesting.jsonl")])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("holds unwritten bytes left by an interrupted writer"))
        #expect(run.standardOutputText.contains("cancel()"))
    }

    @Test(arguments: [["timeline"], ["diagnose"], ["why", "2"], ["render", "--format", "mermaid"], ["render", "--format", "plantuml"],
                      ["graph"]])
    func hostileLabelsReachNoTerminal(_ command: [String]) throws {
        let run = try LifelineExecutable.run([command[0], Self.path("hostile-labels.jsonl")] + command.dropFirst())
        #expect(run.status == 0, "\(run.standardError)")
        #expect(!Self.hasTerminalControl(run.standardOutputText), "\(run.standardOutputText.prefix(600))")
        #expect(!Self.hasTerminalControl(run.standardError))
        #expect(run.standardOutputText.contains(#"a\nforged line\r\0\u{1B}[31mred"#) || command[0] != "timeline")
    }

    @Test func whyNamesTheSnapshotOnOneLine() throws {
        let run = try LifelineExecutable.run(["why", Self.path("hostile-labels.jsonl"), "2"])
        #expect(run.status == 0, "\(run.standardError)")
        let lines = run.standardOutputText.split(separator: "\n")
        #expect(lines.first?.hasPrefix(#"In snapshot 4 "a\nforged line\r\0\u{1B}[31mred"#) == true, "\(lines)")
        #expect(lines.count <= 2)
    }

    @Test func aLongLabelIsCutInTheDOTAndTheGraphStillDraws() throws {
        let dot = try LifelineExecutable.run(["graph", Self.path("long-labels.jsonl")])
        #expect(dot.status == 0)
        // A node's label shows at most 60 characters, the graph's title 120 of the snapshot's.
        #expect(!dot.standardOutputText.contains(String(repeating: "L", count: 120)), "a label was not cut")
        #expect(dot.standardOutputText.contains(String(repeating: "L", count: 59) + "…"))
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("graph.png")
        let drawn = try LifelineExecutable.run(["render", Self.path("long-labels.jsonl"), "--format", "graph-png", "-o", png.path])
        #expect(drawn.status == 0, "\(drawn.standardError)")
        #expect(try Data(contentsOf: png).starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test(arguments: [
        ("conflicting-declaration.jsonl", "line 35: object 1 is declared again, differently from line 4"),
        ("two-end-records.jsonl", "line 36: a second end record (the first is on line 35); a log has one"),
        ("utf16.jsonl", "line 1: not a Lifeline log (it is UTF-16 or UTF-32 text; a Lifeline log is UTF-8)"),
    ])
    func aLogThatDoesNotAddUpIsRefused(_ file: String, _ message: String) throws {
        let run = try LifelineExecutable.run(["diagnose", Self.path(file)])
        #expect(run.status == 2)
        #expect(run.standardError == "error: \(Self.path(file)): \(message)\n", "\(run.standardError)")
    }

    @Test func missingEventsAreAWarningAndSkipTheEndChecks() throws {
        let run = try LifelineExecutable.run(["diagnose", Self.path("missing-events.jsonl")])
        let said = "the end record counts 16 events but the log holds 14: 2 events are missing"
        #expect(run.standardError.contains("warning: \(Self.path("missing-events.jsonl")): \(said)"), "\(run.standardError)")
        #expect(run.standardOutputText.hasPrefix("note: \(said).\nnote: checks about the end of the recording"), "\(run.standardOutputText)")
        let json = try LifelineExecutable.run(["diagnose", Self.path("missing-events.jsonl"), "--format", "json"])
        #expect(json.standardOutputText.contains(said))
    }
}
