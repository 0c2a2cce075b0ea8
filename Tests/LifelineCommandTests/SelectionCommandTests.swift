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
}
