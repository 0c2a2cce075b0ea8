import LifelineAnalysis
import LifelineLog

/// Draws one pipeline of two recordings of a program as two sequence diagrams side by side,
/// before | after, in one SVG that fits a page: what `lifeline diff --format svg` draws for a
/// changed pipeline.
///
/// Each side is the pipeline's own sequence diagram, with its findings as notes, laid out for
/// half the page; a side that still comes out wider is scaled down to its half. Both sides
/// share the sequence diagram's style sheet, so the picture reads in light and dark mode as a
/// sequence diagram does.
public enum SideBySideSequenceRenderer {
    /// One side of the picture: a recording and the pipeline to draw from it.
    public struct Side: Sendable {
        /// The recording.
        public let trace: Trace
        /// Every finding in it, in ``TraceAnalyzer`` order.
        public let diagnoses: [Diagnosis]
        /// Its pipelines.
        public let pipelines: TracePipelines
        /// The pipeline to draw.
        public let pipeline: Pipeline
        /// The heading above it: `before: base.lifeline`.
        public let heading: String

        /// Creates a side.
        public init(trace: Trace, diagnoses: [Diagnosis], pipelines: TracePipelines, pipeline: Pipeline, heading: String) {
            self.trace = trace
            self.diagnoses = diagnoses
            self.pipelines = pipelines
            self.pipeline = pipeline
            self.heading = heading
        }
    }

    /// The space around and between the sides, and the height of a heading, in pixels.
    private static let margin = 12, headingHeight = 24

    /// The two sides' diagrams next to each other, headed by `title` and each side's heading.
    ///
    /// - Parameters:
    ///   - title: What the picture shows, above both sides: `ProfileModel.swift:22`.
    ///   - before: The left side.
    ///   - after: The right side.
    ///   - appearance: Which colours the SVG carries.
    ///   - pageWidth: The width to fit.
    /// - Throws: ``TraceSelectionError`` when a side's pipeline is not in its trace.
    public static func render(
        title: String, before: Side, after: Side, appearance: SVGAppearance = .adaptive,
        pageWidth: Int = SequenceDiagramOptions.defaultPageWidth
    ) throws -> String {
        let half = (pageWidth - 3 * margin) / 2
        let sides = try [before, after].map { side in try diagram(of: side, width: half, appearance: appearance) }
        let top = margin + 2 * headingHeight
        let heights = sides.map { side in Int((Double(side.height) * side.scale).rounded(.up)) }
        let height = top + heights.max()! + margin
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(pageWidth) \(height)\" width=\"\(pageWidth)\" "
            + "height=\"\(height)\" class=\"lifeline-sequence\" role=\"img\" aria-label=\"Before and after: \(XMLText.escape(DisplayText.clean(title)))\">\n"
        svg += "<title>Before and after: \(XMLText.escape(DisplayText.clean(title)))</title>\n"
        // The sides' style sheet styles the whole document: the background and headings use its
        // classes, and read in light and dark mode as the diagrams do.
        svg += "<rect width=\"\(pageWidth)\" height=\"\(height)\" class=\"bg\"/>\n"
        svg += "<text x=\"\(margin)\" y=\"\(margin + 14)\" class=\"tb\">\(XMLText.escape(fitted(title, width: pageWidth - 2 * margin)))</text>\n"
        for (index, side) in sides.enumerated() {
            let x = margin + index * (half + margin)
            let heading = [before, after][index].heading
            svg += "<text x=\"\(x)\" y=\"\(margin + headingHeight + 14)\" class=\"tm\">\(XMLText.escape(fitted(heading, width: half)))</text>\n"
            svg += "<g transform=\"translate(\(x) \(top))\(side.scale < 1 ? " scale(\(format(side.scale)))" : "")\">\n"
            svg += side.svg
            svg += "</g>\n"
        }
        return svg + "</svg>\n"
    }

    /// One side's diagram, as an SVG element to nest, with its size and the scale that fits it
    /// into `width`.
    private static func diagram(of side: Side, width: Int, appearance: SVGAppearance) throws -> (svg: String, height: Int, scale: Double) {
        let selected = try TraceSelection(pipelines: [side.pipeline.id.description])
            .apply(to: side.trace, diagnoses: side.diagnoses, pipelines: side.pipelines)
        var options = SequenceDiagramOptions(pageWidth: width, appearance: appearance)
        options.findingNumbers = selected.findingNumbers
        let svg = SequenceSVGRenderer.render(selected.trace, diagnoses: selected.diagnoses, options: options)
        let (drawnWidth, drawnHeight) = size(of: svg)
        return (svg, drawnHeight, drawnWidth > width ? Double(width) / Double(drawnWidth) : 1)
    }

    /// The width and height a sequence diagram's root element gives.
    private static func size(of svg: String) -> (width: Int, height: Int) {
        func attribute(_ name: String) -> Int {
            guard let start = svg.range(of: " \(name)=\"")?.upperBound else { return 0 }
            return Int(svg[start...].prefix { $0.isNumber }) ?? 0
        }
        return (attribute("width"), attribute("height"))
    }

    /// `text` made fit to show and cut with an ellipsis to what 12-pixel text fits in `width`
    /// pixels.
    private static func fitted(_ text: String, width: Int) -> String {
        DisplayText(text, limit: DisplayText.characters(fitting: width, fontSize: 12)).short
    }

    /// A scale with at most three decimals.
    private static func format(_ scale: Double) -> String {
        String((scale * 1000).rounded(.down) / 1000)
    }
}
