import Foundation
import LifelineGraphviz
import LifelineRender
import Testing

@Suite("Hostile labels through DOT and Graphviz")
struct HostileLabelTests {
    /// Each case: a label, and the text lines Graphviz must show for it.
    static let cases: [(label: String, lines: [String])] = [
        (#"say "hi" to \ and \\"#, [#"say "hi" to \ and \\"#]),
        ("<b>&amp; & &#128512; &lt;</b>", ["<b>&amp; & &#128512; &lt;</b>"]),
        ("first\nsecond\r\nthird", ["first", "second", "third"]),
        ("bell\u{7}escape\u{1B}nul\u{0}del\u{7F}", ["bellescapenuldel"]),
        ("emoji 😀👩‍👩‍👧 and é ü 中文", ["emoji 😀👩‍👩‍👧 and é ü 中文"]),
        (#"\N \l \r \G \E \T \H \L \n"#, [#"\N \l \r \G \E \T \H \L \n"#]),
        ("ends with a backslash \\", ["ends with a backslash \\"]),
    ]

    /// 20,000 characters of quotes, backslashes, markup and emoji: 29,000 bytes once escaped
    /// for DOT, more than the 16,384 bytes Graphviz's scanner takes in one quoted string.
    static let longLabel = String(repeating: #"long "label" \<&> 😀 "#, count: 1_000)

    static var graph: DotGraph {
        var graph = DotGraph.ownershipGraph(name: "hostile \"name\" \\ <&>")
        graph.nodes = cases.indices.map { index in
            .ownershipObject(id: "n\(index)", label: cases[index].label, kind: .subscriber)
        }
        graph.edges = cases.indices.dropFirst().map { index in
            .ownershipReference(from: "n\(index - 1)", to: "n\(index)",
                                field: cases[index - 1].label, reference: .weak)
        }
        return graph
    }

    @Test("a label too long for Graphviz's scanner is cut with an ellipsis, and the graph still renders")
    func longLabelIsCut() throws {
        #expect(Self.longLabel.count == 20_000)
        var graph = DotGraph.ownershipGraph(name: "long")
        graph.nodes = [.ownershipObject(id: "a", label: Self.longLabel, kind: .subscriber),
                       .ownershipObject(id: "b", label: "b", kind: .subscriber)]
        graph.edges = [.ownershipReference(from: "a", to: "b", field: Self.longLabel, reference: .strong)]
        let dot = graph.text
        let quoted = dot.split(separator: "\n").flatMap { $0.split(separator: "=\"").dropFirst() }
        #expect(quoted.count >= 2)
        for string in quoted {
            #expect(string.utf8.count <= 16_384, "a quoted string of \(string.utf8.count) bytes: Graphviz's scanner rejects it")
        }
        let svg = try GraphvizRenderer().svg(fromDOT: dot)
        let lines = try #require(SVGInspection(svg: svg).nodeTextLines["a"])
        let shown = try #require(lines.first)
        #expect(lines.count == 1 && shown.hasSuffix("…") && shown.count > 1_000)
        #expect(Self.longLabel.hasPrefix(shown.dropLast()), "the cut label does not read as the label's start")
    }

    @Test("SVG is well-formed UTF-8 XML and every label reads as written")
    func svgReadsRight() throws {
        let svg = try GraphvizRenderer().svg(fromDOT: Self.graph.text)
        let inspection = SVGInspection(svg: svg)
        #expect(inspection.isWellFormed)
        for (index, expected) in Self.cases.enumerated() {
            let lines = inspection.nodeTextLines["n\(index)"]?.map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(lines == expected.lines, "node label, case \(index)")
        }
        for (index, expected) in Self.cases.dropLast().enumerated() {
            let lines = inspection.edgeTextLines["n\(index)->n\(index + 1)"]?
                .map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(lines == expected.lines, "edge label, case \(index)")
        }
    }

    @Test("hand-written DOT with astral character references and control characters renders right")
    func handWrittenDOT() throws {
        let dot = "digraph { a [label=\"x &#128512; &#x1F600; \u{7}y &#233;\"] }"
        let svg = try GraphvizRenderer().svg(fromDOT: dot)
        #expect(SVGInspection(svg: svg).nodeTextLines["a"] == ["x 😀 😀 y é"])
        let png = try GraphvizRenderer().png(fromDOT: dot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test("xmllint accepts the SVG")
    func xmllintAccepts() throws {
        for appearance in GraphvizAppearance.allCases {
            let svg = try GraphvizRenderer(appearance: appearance).svg(fromDOT: Self.graph.text)
            let result = try xmllint(svg)
            #expect(result.status == 0, "\(result.output)")
        }
    }

    @Test("PNG renders too")
    func pngRenders() throws {
        let png = try GraphvizRenderer().png(fromDOT: Self.graph.text)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    }
}
