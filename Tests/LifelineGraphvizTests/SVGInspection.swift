import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What a test can read out of a rendered SVG: whether it is well-formed XML, and the text
/// lines inside each node and edge, keyed by its `<title>` (a node's DOT id, or `a->b`).
final class SVGInspection: NSObject, XMLParserDelegate {
    private(set) var isWellFormed = false
    private(set) var nodeTextLines: [String: [String]] = [:]
    private(set) var edgeTextLines: [String: [String]] = [:]
    private var groupClasses: [String?] = []
    private var currentTitle: String?
    private var buffer: String?

    init(svg: String) {
        super.init()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.shouldResolveExternalEntities = false
        parser.delegate = self
        isWellFormed = parser.parse()
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        switch elementName {
        case "g": groupClasses.append(attributes["class"])
        case "title", "text": buffer = ""
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        buffer? += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                qualifiedName: String?) {
        switch elementName {
        case "g": groupClasses.removeLast()
        case "title": currentTitle = buffer
        case "text":
            guard let currentTitle, let buffer else { break }
            switch groupClasses.last {
            case "node": nodeTextLines[currentTitle, default: []].append(buffer)
            case "edge": edgeTextLines[currentTitle, default: []].append(buffer)
            default: break
            }
        default: break
        }
        if elementName == "title" || elementName == "text" { buffer = nil }
    }
}

/// Runs `xmllint --noout` on the SVG and returns its exit status and diagnostics.
func xmllint(_ svg: String) throws -> (status: Int32, output: String) {
    let file = FileManager.default.temporaryDirectory
        .appendingPathComponent("lifeline-graphviz-\(UUID().uuidString).svg")
    try Data(svg.utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: xmllintPath)
    process.arguments = ["--noout", "--nonet", file.path]
    let pipe = Pipe()
    process.standardError = pipe
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}

/// `scripts/setup.sh` installs it: a test that needs it fails without it.
let xmllintPath = "/usr/bin/xmllint"
