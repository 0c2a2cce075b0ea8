import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// Checks that rendered output is valid for its format.
enum OutputCheck {
    /// Parses `svg` as XML and returns the text content of every `<text>` element, decoded;
    /// records an issue when it is not well-formed.
    @discardableResult
    static func parseSVG(_ svg: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        let collector = TextCollector()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = collector
        let parsed = parser.parse()
        #expect(parsed, "SVG is not well-formed XML: \(String(describing: parser.parserError))", sourceLocation: sourceLocation)
        #expect(collector.root == "svg", sourceLocation: sourceLocation)
        let result = Result { try ExternalTool.xmllint.run(["--noout", "-"], input: svg) }
        #expect((try? result.get())?.status == 0, "xmllint --noout rejects the SVG: \(result)", sourceLocation: sourceLocation)
        return collector.texts
    }

    /// Runs `plantuml -syntax` and draws the diagram, recording an issue when PlantUML
    /// reports an error in any of the source's diagrams (`@startuml` … `@enduml`) or crashes
    /// while drawing (which `-syntax` alone does not catch).
    static func checkPlantUML(_ source: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try checkPlantUML([("the diagram", source)], sourceLocation: sourceLocation)
    }

    /// Checks several PlantUML sources, each named for the failure message, with one run of
    /// `plantuml -syntax` and one drawing for all of them (PlantUML takes most of a second to
    /// start); only when that fails is each source checked alone, to name the one at fault.
    static func checkPlantUML(_ sources: [(name: String, source: String)], sourceLocation: SourceLocation = #_sourceLocation) throws {
        if try plantUMLProblem(in: sources.map(\.source).joined(separator: "\n")) == nil { return }
        for (name, source) in sources {
            if let problem = try plantUMLProblem(in: source) {
                Issue.record("\(name): \(problem)", sourceLocation: sourceLocation)
            }
        }
    }

    /// What PlantUML says is wrong with `source`, or nil when it accepts and draws every
    /// diagram in it. `-syntax` writes one result per diagram (`SEQUENCE` and its participant
    /// count, or `ERROR`, the line and the message), so every diagram must give `SEQUENCE`.
    private static func plantUMLProblem(in source: String) throws -> String? {
        let diagrams = source.split(separator: "\n").filter { $0 == "@startuml" }.count
        let syntax = try ExternalTool.plantUML.run(["-syntax"], input: source)
        let accepted = syntax.output.split(separator: "\n").filter { $0 == "SEQUENCE" }.count
        guard syntax.status == 0, accepted == diagrams, !syntax.output.contains("ERROR") else {
            return "plantuml -syntax rejects \(diagrams - accepted) of \(diagrams) diagrams (exit \(syntax.status)):\n"
                + syntax.output.prefix(2_000)
        }
        let drawn = try ExternalTool.plantUML.run(["-tsvg", "-pipe"], input: source)
        guard drawn.status == 0, !drawn.output.contains("Exception"), !drawn.output.contains("An error has occured"),
              drawn.output.components(separatedBy: "<svg").count - 1 == diagrams
        else { return "plantuml fails to draw the diagrams:\n\(drawn.output.prefix(2_000))" }
        return nil
    }

    private final class TextCollector: NSObject, XMLParserDelegate {
        var root: String?
        var texts: [String] = []
        private var inText = 0
        private var inTitle = 0

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
            if root == nil { root = name }
            if name == "text" { inText += 1; texts.append("") }
            if name == "title" { inTitle += 1 }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text" { inText -= 1 }
            if name == "title" { inTitle -= 1 }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inText > 0, inTitle == 0 { texts[texts.count - 1] += string }
        }
    }
}
