import LifelineAnalysis
import LifelineLog
import LifelineRender

/// Says on standard error when a picture is wider than a doc page (1,200 px) even after
/// packing and folding, and what to do about it.
enum PageFit {
    /// The width a picture should fit.
    static let pageWidth = SequenceDiagramOptions.defaultPageWidth

    static func warnIfTooWide(
        format: RenderFormat, picture: [UInt8], trace: Trace, diagnoses: [Diagnosis], collapse: SequenceDiagramOptions.Collapse,
        name: String? = nil
    ) {
        let width: Int?
        switch format {
        case .svg, .marbles: width = svgWidth(picture)
        case .mermaid, .plantuml:
            width = SequenceSVGRenderer.estimatedWidth(trace, diagnoses: diagnoses, options: .init(collapse: collapse))
        case .perfetto, .dot, .graphSVG, .graphPNG: width = nil
        }
        guard let width, width > pageWidth else { return }
        var advice = ["--between MARK MARK"]
        if name == nil { advice.insert(contentsOf: ["--split (one picture per pipeline)", "--pipeline ID (see `lifeline pipelines`)"], at: 0) }
        if format != .marbles && collapse == .none { advice.insert("--collapse operators", at: 0) }
        StandardError.write(
            "warning: the \(format.pictureName)\(name.map { " of \($0)" } ?? "") is \(width) px wide, more than a \(pageWidth) px page; draw less of it with "
                + advice.joined(separator: ", ")
        )
    }

    /// The `width` attribute of an SVG document's root element.
    static func svgWidth(_ svg: [UInt8]) -> Int? {
        let head = String(decoding: svg.prefix(600), as: UTF8.self)
        guard let range = head.range(of: " width=\"") else { return nil }
        return Int(head[range.upperBound...].prefix { $0.isNumber })
    }
}
