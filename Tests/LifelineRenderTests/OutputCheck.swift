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
        if ExternalTool.xmllint.isInstalled {
            let result = try? ExternalTool.xmllint.run(["--noout", "-"], input: svg)
            #expect(result?.status == 0, "xmllint --noout rejects the SVG: \(result?.output ?? "did not run")", sourceLocation: sourceLocation)
        }
        return collector.texts
    }

    /// Runs `plantuml -syntax` and draws the diagram, recording an issue when PlantUML
    /// reports an error or crashes while drawing (which `-syntax` alone does not catch).
    static func checkPlantUML(_ source: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let syntax = try ExternalTool.plantUML.run(["-syntax"], input: source)
        #expect(syntax.output.hasPrefix("SEQUENCE"), "plantuml -syntax rejects the diagram:\n\(syntax.output.prefix(2_000))",
                sourceLocation: sourceLocation)
        let drawn = try ExternalTool.plantUML.run(["-tsvg", "-pipe"], input: source)
        #expect(drawn.status == 0 && !drawn.output.contains("Exception") && !drawn.output.contains("An error has occured"),
                "plantuml fails to draw the diagram:\n\(drawn.output.prefix(2_000))", sourceLocation: sourceLocation)
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
