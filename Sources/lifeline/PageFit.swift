import ArgumentParser
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
        case .svg, .marbles: width = svgSize(picture)?.0
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

    /// The most nodes an ownership graph is laid out with. Above it Graphviz needs sfdp, whose
    /// layout of such graphs overlaps (135,718 overlapping node pairs were measured on one),
    /// and dot takes minutes.
    static let graphNodeLimit = 1_000

    /// The largest side, in pixels, of a picture every common viewer opens (browsers' and
    /// rsvg's canvas limit).
    static let viewableSide = 32_767

    /// Refuses (exit 2) to lay out an ownership graph too big to read, and says how to draw
    /// a part of it.
    static func checkGraphSize(_ snapshot: TraceSnapshot) throws {
        guard snapshot.nodes.count > graphNodeLimit else { return }
        StandardError.write(
            "error: snapshot \"\(snapshot.label)\" holds \(snapshot.nodes.count) objects, more than a readable graph "
                + "(\(graphNodeLimit)); draw one pipeline and the objects around it with --pipeline ID (see `lifeline pipelines`), "
                + "or write --format dot for other tools"
        )
        throw ExitCode(2)
    }

    /// Refuses (exit 2) to write an SVG no common viewer can open.
    static func checkViewable(format: RenderFormat, picture: [UInt8]) throws {
        guard format == .svg || format == .marbles, let (width, height) = svgSize(picture),
              width > viewableSide || height > viewableSide else { return }
        StandardError.write(
            "error: the \(format.pictureName) would be \(width) × \(height) px, more than viewers open (\(viewableSide) px a side); "
                + "draw less of it with --split, --pipeline ID or --between MARK MARK"
        )
        throw ExitCode(2)
    }

    /// The `width` and `height` attributes of an SVG document's root element.
    static func svgSize(_ svg: [UInt8]) -> (Int, Int)? {
        let head = String(decoding: svg.prefix(600), as: UTF8.self)
        func attribute(_ name: String) -> Int? {
            guard let range = head.range(of: " \(name)=\"") else { return nil }
            return Int(head[range.upperBound...].prefix { $0.isNumber })
        }
        guard let width = attribute("width"), let height = attribute("height") else { return nil }
        return (width, height)
    }
}
