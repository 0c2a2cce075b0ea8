import LifelineAnalysis
import LifelineRender
import Testing

/// What each realistic app's test asks of its pictures: one per pipeline, as
/// `lifeline render --split` draws them, each within a doc page.
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
}
