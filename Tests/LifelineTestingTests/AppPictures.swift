import LifelineAnalysis
@testable import LifelineRender
import Testing

/// What each realistic app's test asks of its pictures: the whole log, as `lifeline render`
/// draws it first, and one picture per pipeline, as `lifeline render --split` draws them,
/// each within a doc page.
enum AppPictures {
    /// The widest a picture may be: a doc page.
    static let pageWidth = 1_200

    /// Draws every pipeline of `lifecycles` alone with its findings, expects each picture to
    /// be at most ``pageWidth`` wide and no two pipelines to share a name (a line that
    /// subscribed twice names two), and returns each pipeline with its SVG.
    static func eachPipelineFittingAPage(
        _ lifecycles: TraceLifecycles, diagnoses: [Diagnosis]
    ) throws -> [(pipeline: Pipeline, svg: String)] {
        let pipelines = TracePipelines(lifecycles).pipelines
        let names = pipelines.map(\.name)
        #expect(Set(names).count == names.count, "\(names)")
        return try pipelines.map { pipeline in
            let chosen = try TraceSelection(pipelines: [pipeline.id.description]).apply(to: lifecycles.trace, diagnoses: diagnoses)
            let svg = SequenceSVGRenderer.render(chosen.trace, diagnoses: chosen.diagnoses)
            let width = svg.firstRange(of: " width=\"").map { Int(svg[$0.upperBound...].prefix(while: \.isNumber)) ?? 0 } ?? 0
            #expect(width > 0 && width <= pageWidth, "\(pipeline.id) \(pipeline.name) is \(width) px wide")
            return (pipeline, svg)
        }
    }

    /// Draws the whole log with its findings, as `lifeline render --format svg` does, and
    /// expects it at most ``pageWidth`` wide, cut into sections that together draw every row
    /// of the picture once, in order: each event it numbers (`@N`, in the left column) once.
    static func wholeLogFittingAPage(_ lifecycles: TraceLifecycles, diagnoses: [Diagnosis]) {
        let trace = lifecycles.trace
        let svg = SequenceSVGRenderer.render(trace, diagnoses: diagnoses, lifecycles: lifecycles)
        let width = svg.firstRange(of: " width=\"").map { Int(svg[$0.upperBound...].prefix(while: \.isNumber)) ?? 0 } ?? 0
        #expect(width > 0 && width <= pageWidth, "the whole log is \(width) px wide")

        let model = SequenceModel.fitted(trace, diagnoses: diagnoses, options: .init(), lifecycles: lifecycles)
        let sections = model.sections(fitting: pageWidth)
        #expect(sections.count > 1, "the whole log is cut into sections")
        #expect(sections.map(\.steps.count).reduce(0, +) == model.steps.count)
        #expect(sections.flatMap(\.steps).map(\.seq) == model.steps.map(\.seq), "the sections' rows are the picture's, in order")
        // A return that hands back no demand draws no number unless a finding cites it.
        let numberedRows = model.steps.filter { step in
            if case .callReturn(_, _, _, _, nil) = step.content { return !step.citedBy.isEmpty }
            return true
        }.compactMap(\.seq)
        let numbers = svg.matches(of: /<text x="16" y="[0-9]+" class="tm">@([0-9]+)<\/text>/).compactMap { UInt64($0.output.1) }
        #expect(numbers == numberedRows, "\(numbers.count) numbered rows drawn for \(numberedRows.count)")
        #expect(Set(numbers).count == numbers.count, "an event is numbered in two sections")
    }
}
