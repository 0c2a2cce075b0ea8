import Foundation
import Lifeline
import LifelineAnalysis
import LifelineLog
import LifelineRender
import NewsReaderApp
import PortfolioApp
import Testing

/// PlantUML crops a PNG larger than 4,096 px a side to exactly 4,096, without a word. A
/// realistic app's whole sequence diagram is larger (the news reader's was 5,062 × 7,137 px,
/// the portfolio's 7,162 × 28,035), so the PlantUML source comes cut into diagrams and pages
/// that PlantUML draws whole.
@Suite("PlantUML pages of the realistic apps", .serialized)
struct PlantUMLPagesTests {
    /// PlantUML's largest picture side (`PLANTUML_LIMIT_SIZE`); a cropped picture is exactly
    /// this wide or tall.
    static let limit = 4_096

    @Test func theNewsReadersDiagramIsDrawnWholeOnPagesPlantUMLDoesNotCrop() throws {
        try expectPagesPlantUMLDrawsWhole(try Lifeline.record {
            let app = NewsReaderApp()
            #expect(app.run(), "the app's queues went quiet")
            app.tearDown()
        })
    }

    @Test func thePortfoliosDiagramIsDrawnWholeOnPagesPlantUMLDoesNotCrop() throws {
        try expectPagesPlantUMLDrawsWhole(try Lifeline.record {
            let app = PortfolioApp()
            #expect(app.run(), "the app's queues went quiet")
            app.tearDown()
        })
    }

    /// Draws the trace's PlantUML source with `plantuml -tpng` and checks every page is smaller
    /// than the limit, and that no call arrow was lost on the way.
    private func expectPagesPlantUMLDrawsWhole(_ trace: Trace) throws {
        let plantuml = ["/usr/bin/plantuml", "/usr/local/bin/plantuml"].first(where: FileManager.default.isExecutableFile)
        let tool = try #require(plantuml, "plantuml is not installed: scripts/setup.sh installs it")
        let diagnoses = TraceAnalyzer().diagnose(TraceLifecycles(trace))
        let source = PlantUMLSequenceRenderer.render(trace, diagnoses: diagnoses)
        let mermaid = MermaidSequenceRenderer.render(trace, diagnoses: diagnoses)
        // Mermaid's diagram is one piece: it has as many calls and returned demands as every
        // PlantUML page together.
        let drawn = arrows(in: source, call: " -> ", reply: " --> "), whole = arrows(in: mermaid, call: "->>", reply: "-->>")
        #expect(drawn.calls == whole.calls && drawn.replies == whole.replies, "PlantUML \(drawn), Mermaid \(whole)")
        #expect(whole.calls > 100)

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plantuml-pages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("sequence.puml")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-tpng", file.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "plantuml reports an error in the source")

        let pages = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".png") }.sorted()
        #expect(pages.count > 1)
        for page in pages {
            let png = try Data(contentsOf: folder.appendingPathComponent(page))
            try #require(png.count >= 24)
            let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
            let height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(width < Self.limit && height < Self.limit, "\(page) is \(width) × \(height) px")
        }
    }

    /// The lines of `source` that draw a call or a returned demand.
    private func arrows(in source: String, call: String, reply: String) -> (calls: Int, replies: Int) {
        let lines = source.split(separator: "\n")
        return (lines.filter { $0.contains(call) && !$0.contains(reply) }.count, lines.filter { $0.contains(reply) }.count)
    }
}
