import Foundation
@testable import Lifeline
import LifelineAnalysis
import LifelineLog
@testable import LifelineRender
import NewsReaderApp
import Testing

/// The news reader's whole log drawn in every sequence format: Mermaid and PlantUML cut the
/// sections the SVG cuts and draw the lanes it draws, headed as the SVG heads them, so they
/// are no wider.
@Suite("The news reader's pictures", .serialized)
struct NewsReaderPicturesTests {
    @Test func mermaidAndPlantUMLDrawTheSVGsLanesUnderTheSVGsHeadings() throws {
        let trace = try Lifeline.record {
            let app = NewsReaderApp()
            #expect(app.run(), "the app's queues went quiet")
            app.tearDown()
        }
        let lifecycles = TraceLifecycles(trace)
        let diagnoses = TraceAnalyzer().diagnose(lifecycles)
        let model = SequenceModel.fitted(trace, diagnoses: diagnoses, options: .init(), lifecycles: lifecycles)
        let svg = SequenceSVGRenderer.render(trace, diagnoses: diagnoses, lifecycles: lifecycles)
        // The operators of each pipeline are folded into one lane, as the SVG folds them.
        #expect(model.lanes.contains { $0.isGroup })
        let svgLanes = Set(model.sections(fitting: SequenceDiagramOptions.defaultPageWidth).flatMap { $0.lanes.map(\.object.id) })
        #expect(svgLanes.count == model.lanes.count)

        // Mermaid cuts the sections the SVG cuts: one diagram per section, each headed by the
        // events it draws and with the participants of the SVG section's lanes, no more.
        let ranges = model.sectionRanges(fitting: SequenceDiagramOptions.defaultPageWidth)
        #expect(ranges.count > 1, "the whole log is cut into sections")
        let mermaid = MermaidSequenceRenderer.render(trace, diagnoses: diagnoses, lifecycles: lifecycles)
        #expect(MermaidSequenceRenderer.isMarkdown(mermaid))
        let mermaidDiagrams = MermaidSequenceRenderer.diagrams(in: mermaid)
        #expect(mermaidDiagrams.count == ranges.count, "\(mermaidDiagrams.count) Mermaid diagrams for \(ranges.count) SVG sections")
        let headings = mermaid.split(separator: "\n").filter { $0.hasPrefix("**Part ") }
        #expect(headings.count == ranges.count)
        for (index, (diagram, range)) in zip(mermaidDiagrams, ranges).enumerated() {
            let section = model.part(range)
            let participants = diagram.split(separator: "\n").filter { $0.hasPrefix("    participant ") }
            #expect(participants.count == section.lanes.count, "section \(index + 1): \(participants.count) participants for \(section.lanes.count) lanes")
            for (participant, lane) in zip(participants, section.lanes) {
                #expect(participant == "    participant L\(lane.index) as \(MermaidText.escape(lane.typeLine, limit: 72))<br/>"
                    + MermaidText.escape(lane.identityLine, limit: 72))
                #expect(svg.contains(">\(XMLText.escape(lane.typeLine))</text>"), "\(lane.typeLine)")
            }
            let seqs = section.steps.compactMap(\.seq)
            if index < headings.count, let first = seqs.min(), let last = seqs.max() {
                let range = first == last ? "@\(first)" : "@\(first) to @\(last)"
                #expect(headings[index] == "**Part \(index + 1) of \(ranges.count)** · events \(range)")
            }
            #expect(diagram.hasPrefix("sequenceDiagram\n"))
        }
        let plantUML = PlantUMLSequenceRenderer.render(trace, diagnoses: diagnoses, lifecycles: lifecycles)
        let diagrams = plantUML.components(separatedBy: "@startuml").dropFirst()
        // Each diagram heads the lanes of an SVG section, or of sections joined because one
        // holds no call (PlantUML refuses a diagram without a message); a recording can make
        // such a section (deallocations alone), so the joined ones may be wider.
        let counts = diagrams.map { $0.split(separator: "\n").filter { $0.hasPrefix("participant ") }.count }
        let drawn = PlantUMLSequenceRenderer.drawable(ranges, of: model)
        #expect(counts == (drawn.count > 1 ? drawn.map { model.part($0).lanes.count } : [model.lanes.count]))
    }
}
