import Foundation
@testable import Lifeline
import LifelineAnalysis
import LifelineLog
@testable import LifelineRender
import NewsReaderApp
import Testing

/// The news reader's whole log drawn in every sequence format: Mermaid and PlantUML draw the
/// lanes the SVG draws, headed as the SVG heads them, so they are no wider.
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

        let mermaid = MermaidSequenceRenderer.render(trace, diagnoses: diagnoses, lifecycles: lifecycles)
        let participants = mermaid.split(separator: "\n").filter { $0.hasPrefix("    participant ") }
        #expect(participants.count <= svgLanes.count, "\(participants.count) participants for \(svgLanes.count) lanes")
        for (participant, lane) in zip(participants, model.lanes) {
            #expect(participant == "    participant L\(lane.index) as \(MermaidText.escape(lane.typeLine, limit: 72))<br/>"
                + MermaidText.escape(lane.identityLine, limit: 72))
            #expect(svg.contains(">\(XMLText.escape(lane.typeLine))</text>"), "\(lane.typeLine)")
        }
        let plantUML = PlantUMLSequenceRenderer.render(trace, diagnoses: diagnoses, lifecycles: lifecycles)
        let diagrams = plantUML.components(separatedBy: "@startuml").dropFirst()
        let widest = diagrams.map { $0.split(separator: "\n").filter { $0.hasPrefix("participant ") }.count }.max() ?? 0
        let widestSection = model.sections(fitting: SequenceDiagramOptions.defaultPageWidth).map(\.lanes.count).max() ?? 0
        #expect(widest <= widestSection, "\(widest) participants in a PlantUML diagram, \(widestSection) lanes in an SVG section")
    }
}
