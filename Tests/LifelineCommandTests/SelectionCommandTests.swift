import Foundation
import Testing

/// `--pipeline`, `--between`, `--finding` on every picture command, and `lifeline pipelines`:
/// what is chosen is drawn, and an unknown choice is refused (exit 2) with the known ones.
@Suite struct SelectionCommandTests {
    static let trace = RenderCommandTests.fixtures.appendingPathComponent("schedulers.jsonl").path

    @Test func pipelinesListsEveryPipelineWithItsFindings() throws {
        let run = try LifelineExecutable.run(["pipelines", Self.trace])
        let text = String(decoding: run.standardOutput, as: UTF8.self)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(text.contains("P4  Sink #25"))
        #expect(text.contains("4 pipelines, 1 finding"))
        let json = try LifelineExecutable.run(["pipelines", Self.trace, "--format", "json"])
        let document = try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any]
        #expect((document?["pipelines"] as? [Any])?.count == 4)
    }

    @Test(arguments: ["svg", "mermaid", "plantuml", "marbles", "perfetto"])
    func everyPictureRefusesAnUnknownPipeline(_ format: String) throws {
        let run = try LifelineExecutable.run(["render", Self.trace, "--format", format, "--pipeline", "P9"])
        #expect(run.status == 2)
        #expect(run.standardError.contains("no pipeline \"P9\"; the pipelines are: P1 (Sink #1), P2 (Sink #13)"))
    }

    @Test func theTimelineRefusesAnUnknownMarkAndFinding() throws {
        let mark = try LifelineExecutable.run(["timeline", Self.trace, "--between", "start", "story ends"])
        #expect(mark.status == 2)
        #expect(mark.standardError.contains("the marks are: \"story begins\", \"story ends\""))
        let finding = try LifelineExecutable.run(["timeline", Self.trace, "--finding", "7"])
        #expect(finding.status == 2)
        #expect(finding.standardError.contains("the findings are numbered 1 to 1"))
    }

    @Test func aChosenPipelineDrawsOnlyItsObjects() throws {
        let run = try LifelineExecutable.run(["timeline", Self.trace, "--no-times", "--pipeline", "P2"])
        let text = String(decoding: run.standardOutput, as: UTF8.self)
        #expect(run.status == 0)
        #expect(text.contains("Sink #13"))
        #expect(!text.contains("Sink #25"))
    }

    @Test func splitWritesOnePicturePerPipelineThatFitsAndAnIndex() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("pipelines")
        let run = try LifelineExecutable.run(["render", Self.trace, "--format", "svg", "--split", "-o", output.path])
        #expect(run.status == 0, "\(run.standardError)")
        let files = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        #expect(files == ["P1.svg", "P2.svg", "P3.svg", "P4.svg", "index.md"])
        for file in files where file.hasSuffix(".svg") {
            let svg = try String(contentsOf: output.appendingPathComponent(file), encoding: .utf8)
            let width = svg.firstRange(of: " width=\"").map { Int(svg[$0.upperBound...].prefix { $0.isNumber }) ?? 0 } ?? 0
            #expect(width > 0 && width <= 1_200, "\(file) is \(width) px wide")
        }
        let index = try String(contentsOf: output.appendingPathComponent("index.md"), encoding: .utf8)
        #expect(index.contains("| [P4](P4.svg) | Sink #25 | 3 | 1 | finished | [1](#finding-1) |"))
        #expect(index.contains("**error demand-exceeded** ([P3](P3.svg), [P4](P4.svg))"))
    }

    /// `--split` into a folder that exists already replaces its pictures.
    @Test func splitWritesIntoAFolderThatExists() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try LifelineExecutable.run(["render", Self.trace, "--format", "svg", "--split", "-o", folder.path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).contains("index.md"))
    }

    /// `lifeline graph` chooses what to draw as every picture command does.
    @Test func graphTakesTheSelectionOptions() throws {
        let run = try LifelineExecutable.run(["graph", Self.trace, "--pipeline", "P9"])
        #expect(run.status == 2)
        #expect(run.standardError.contains("P1"), "an unknown pipeline is refused with the list of known ones")
        let chosen = try LifelineExecutable.run(["graph", Self.trace, "--pipeline", "P1"])
        #expect(chosen.status == 0, "\(chosen.standardError)")
        #expect(chosen.standardOutputText.hasPrefix("digraph"))
    }

    @Test func splitNeedsAFolder() throws {
        let run = try LifelineExecutable.run(["render", Self.trace, "--format", "svg", "--split"])
        #expect(run.status != 0)
        #expect(run.standardError.contains("--split writes one file per pipeline"))
    }
}
