import Foundation

/// Prints how long drawing a log with one very long label takes, in every picture format, as
/// the label grows from 30,000 to 120,000 characters: the times stay flat, where drawing the
/// 120,000-character one as SVG used to take over a minute (a note's line breaking was
/// quadratic in the label's length).
///
/// The log is Fuzz/Corpus/long-label-in-a-finding.jsonl: the forgotten-subscription story,
/// whose subscriber, named by the finding, is labelled with 120,000 right-to-left overrides
/// (U+202E, a million characters once escaped). Shorter labels are written beside it in the
/// log directory. The commands run as child processes, under GNU time for their peak memory.
enum LongLabelBenchmark {
    static let corpusLog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/long-label-in-a-finding.jsonl").path
    static let formats = ["svg", "mermaid", "plantuml", "marbles", "perfetto"]

    static func run(logDirectory: String) throws {
        let lifeline = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("lifeline").path
        guard FileManager.default.isExecutableFile(atPath: lifeline) else {
            print("Drawing a long label: no lifeline binary beside the benchmark (\(lifeline))")
            return
        }
        let log = try String(contentsOfFile: corpusLog, encoding: .utf8)
        let label = String(repeating: "\u{202E}", count: 120_000)
        guard log.contains(label) else {
            print("Drawing a long label: \(corpusLog) no longer holds its 120,000-character label")
            return
        }
        print("Drawing a log of \(log.split(separator: "\n").count) lines whose one label is N × U+202E (render --format F), wall time and peak memory")
        print("label length     " + formats.map { $0.padding(toLength: 18, withPad: " ", startingAt: 0) }.joined())
        for length in [30_000, 60_000, 120_000] {
            let path = "\(logDirectory)/lifeline-long-label-\(getpid())-\(length).jsonl"
            defer { try? FileManager.default.removeItem(atPath: path) }
            try log.replacingOccurrences(of: label, with: String(repeating: "\u{202E}", count: length))
                .write(toFile: path, atomically: true, encoding: .utf8)
            var line = String(format: "%7d chars    ", length)
            for format in formats {
                line += "  " + ChildRun(lifeline, ["render", path, "--format", format]).summary
            }
            print(line)
        }
    }
}
