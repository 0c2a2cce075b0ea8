import LifelineAnalysis
import LifelineLog

/// Whether a picture fits a doc page (1,200 px wide) and any viewer, and what to draw
/// instead when it does not.
public enum PageFit {
    /// A picture too big to draw or to open, and how to draw less of it.
    public struct PictureTooLarge: Error, CustomStringConvertible {
        public let description: String
    }

    /// The width a picture should fit.
    public static let pageWidth = SequenceDiagramOptions.defaultPageWidth

    /// The warning (without its `warning:` prefix) to give when `picture` is wider than a page even after packing and
    /// folding, with what to do about it, or `nil` when it fits. `name` is the pipeline a
    /// split picture draws.
    public static func tooWideWarning(
        format: PictureFormat, picture: [UInt8], trace: Trace, diagnoses: [Diagnosis], collapse: SequenceDiagramOptions.Collapse,
        name: String? = nil
    ) -> String? {
        let width: Int?
        switch format {
        case .svg, .marbles, .graphSVG: width = svgSize(picture)?.0
        case .mermaid, .plantuml:
            width = SequenceSVGRenderer.estimatedWidth(trace, diagnoses: diagnoses, options: .init(collapse: collapse),
                                                       sectioned: true)
        case .graphPNG: width = pngWidth(picture)
        case .perfetto, .dot: width = nil
        }
        guard let width, width > pageWidth else { return nil }
        var advice = drawLess(split: name == nil)
        if format.showsFindings && collapse == .none { advice.insert("--collapse operators", at: 0) }
        return "the \(format.pictureName)\(name.map { " of \($0)" } ?? "") is \(width) px wide, more than a \(pageWidth) px page; "
            + "draw less of it with " + advice.joined(separator: ", ")
    }

    /// The longest diagram Mermaid draws unless told otherwise: its `maxTextSize`, in UTF-16
    /// code units. GitHub, GitLab and editors' previews keep it, and show "Maximum text size in
    /// diagram exceeded" in place of a longer diagram.
    static let mermaidTextLimit = 50_000

    /// The warning (without its `warning:` prefix) to give when a Mermaid diagram (one of a
    /// sectioned picture's) is longer than Mermaid draws by default, with what to do about it,
    /// or `nil` for any other picture and for one that Mermaid draws. `name` is the pipeline a
    /// split picture draws.
    public static func tooLongWarning(format: PictureFormat, picture: [UInt8], name: String? = nil) -> String? {
        guard format == .mermaid, picture.count > mermaidTextLimit else { return nil }
        let text = String(decoding: picture, as: UTF8.self)
        let length = MermaidSequenceRenderer.diagrams(in: text).map(\.utf16.count).max() ?? 0
        guard length > mermaidTextLimit else { return nil }
        return "the Mermaid diagram\(name.map { " of \($0)" } ?? "") is \(length) characters long, more than Mermaid draws "
            + "unless its maxTextSize is raised (\(mermaidTextLimit)); draw less of it with "
            + drawLess(split: name == nil).joined(separator: ", ")
    }

    /// The warning (without its `warning:` prefix) to give when a Mermaid picture cut into
    /// sections, which is Markdown with one diagram per section, goes to a `.mmd` file, which
    /// Mermaid's tools read as one diagram; `nil` otherwise.
    public static func markdownWarning(format: PictureFormat, picture: [UInt8], fileName: String) -> String? {
        guard format == .mermaid, fileName.hasSuffix(".mmd") else { return nil }
        let text = String(decoding: picture, as: UTF8.self)
        guard MermaidSequenceRenderer.isMarkdown(text) else { return nil }
        let sections = MermaidSequenceRenderer.diagrams(in: text).count
        return "\(fileName) holds Markdown, not one Mermaid diagram: the sequence diagram is cut into \(sections) sections "
            + "as the SVG is, one ```mermaid block each, for a doc page to embed; name the file .md for Mermaid's tools (mmdc -i FILE.md)"
    }

    /// The options that draw a part of a picture: a split picture is already one pipeline.
    private static func drawLess(split: Bool) -> [String] {
        (split ? ["--split (one picture per pipeline)", "--pipeline ID (see `lifeline pipelines`)"] : []) + ["--between MARK MARK"]
    }

    /// The most nodes an ownership graph is laid out with. Above it Graphviz needs sfdp, whose
    /// layout of such graphs overlaps (135,718 overlapping node pairs were measured on one),
    /// and dot takes minutes.
    static let graphNodeLimit = 1_000

    /// The largest side, in pixels, of a picture every common viewer opens (browsers' and
    /// rsvg's canvas limit).
    static let viewableSide = 32_767

    /// Refuses to lay out an ownership graph too big to read, and says how to draw a part of
    /// it.
    public static func checkGraphSize(_ snapshot: TraceSnapshot) throws(PictureTooLarge) {
        guard snapshot.nodes.count > graphNodeLimit else { return }
        throw PictureTooLarge(description:
            "snapshot \"\(snapshot.label)\" holds \(snapshot.nodes.count) objects, more than a readable graph "
                + "(\(graphNodeLimit)); draw one pipeline and the objects around it with --pipeline ID (see `lifeline pipelines`), "
                + "or write --format dot for other tools"
        )
    }

    /// Refuses to write an SVG no common viewer can open.
    public static func checkViewable(format: PictureFormat, picture: [UInt8]) throws(PictureTooLarge) {
        guard format == .svg || format == .marbles, let (width, height) = svgSize(picture),
              width > viewableSide || height > viewableSide else { return }
        throw PictureTooLarge(description:
            "the \(format.pictureName) would be \(width) × \(height) px, more than viewers open (\(viewableSide) px a side); "
                + "draw less of it with --split, --pipeline ID or --between MARK MARK"
        )
    }

    /// The width of a PNG image, from its header.
    static func pngWidth(_ png: [UInt8]) -> Int? {
        guard png.count >= 24, png.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
        return png[16..<20].reduce(0) { $0 << 8 | Int($1) }
    }

    /// The `width` and `height` of an SVG document's root element, in pixels. Graphviz writes
    /// them in points (`width="1101pt"`): 4 px for every 3 pt.
    static func svgSize(_ svg: [UInt8]) -> (Int, Int)? {
        let head = String(decoding: svg.prefix(2_000), as: UTF8.self)
        guard let root = head.range(of: "<svg ") else { return nil }
        let element = " " + head[root.upperBound...].prefix { $0 != ">" }
        func attribute(_ name: String) -> Int? {
            guard let range = element.range(of: " \(name)=\"") else { return nil }
            let value = element[range.upperBound...]
            guard let number = Int(value.prefix { $0.isNumber }) else { return nil }
            return value.drop { $0.isNumber || $0 == "." }.hasPrefix("pt") ? number * 4 / 3 : number
        }
        guard let width = attribute("width"), let height = attribute("height") else { return nil }
        return (width, height)
    }
}
