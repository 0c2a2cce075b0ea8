import Foundation
import LifelineLog
import Testing
@testable import LifelineRender

/// Labels, type names, values, thread names and diagnoses made of quotes, backslashes,
/// `<>&`, newlines, control characters, emoji, a right-to-left override and 20,000
/// characters still give valid output in every format, and the text still reads right.
@Suite struct HostileLabelTests {
    let trace = SampleTraces.hostile
    let diagnoses = SampleTraces.hostileDiagnoses
    /// How the start of the hostile text reads once cleaned: control characters as Swift
    /// escapes, everything else as itself.
    let readable = #"quote" back\slash <tag>&amp; new\nline\r tab\t bell\u{7} nul\0 del\u{7F} #35; ;%% --> -->> @enduml \n **b** //i// 🧵 \u{202E}rtl xxx"#

    @Test func cleaningKeepsOneLineAndSaysWhatWasThere() {
        let cleaned = DisplayText.clean(SampleTraces.hostileText)
        #expect(cleaned.hasPrefix(readable))
        #expect(!cleaned.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" })
        let shortened = DisplayText(SampleTraces.hostileText, limit: 12)
        #expect(shortened.short == #"quote" back…"#)
        // Even the full text is capped, at the one limit every output shares.
        #expect(shortened.full == String(cleaned.prefix(TraceText.limit - 1)) + "…")
    }

    @Test func longTypeNamesKeepTheirMostSpecificPart() {
        #expect(DisplayText.typeName("DecodedDataTaskPublisher.DecodedDataTaskSubscription", limit: 30).short == "…DecodedDataTaskSubscription")
        #expect(DisplayText.typeName("Publishers.ReceiveOn.Inner", limit: 30).short == "Publishers.ReceiveOn.Inner")
        #expect(DisplayText.typeName("A." + String(repeating: "y", count: 40), limit: 30).short == "A." + String(repeating: "y", count: 27) + "…")
        #expect(DisplayText.typeName("new\nline." + String(repeating: "z", count: 40), limit: 12).full == "new\\nline." + String(repeating: "z", count: 40))
    }

    @Test func sequenceSVG() {
        let svg = SequenceSVGRenderer.render(trace, diagnoses: diagnoses)
        let texts = OutputCheck.parseSVG(svg)
        #expect(texts.contains { $0.hasPrefix(#"◆ quote" back\slash <tag>&amp; new\nline\r tab\t bell\u{7}"#) })
        #expect(texts.allSatisfy { $0.count <= 80 }, "a label was not shortened for layout")
        #expect(svg.contains(XMLText.escape(DisplayText.clean(SampleTraces.hostileText))), "the full text is not in a <title>")
        #expect(!svg.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || $0 == "\u{202E}" })
    }

    @Test func marbleSVG() {
        for axis in MarbleDiagramOptions.Axis.allCases {
            let texts = OutputCheck.parseSVG(MarbleSVGRenderer.render(trace, options: .init(axis: axis)))
            #expect(texts.contains { $0.hasPrefix(#"quote" back\slash <tag>&amp;"#) })
        }
    }

    @Test func mermaid() {
        let source = MermaidSequenceRenderer.render(trace, diagnoses: diagnoses)
        for line in source.split(separator: "\n") {
            #expect(line.wholeMatch(of: Self.mermaidStatement) != nil, "not one Mermaid statement: \(line.prefix(200))")
            // With the entity codes and our own line breaks taken out, nothing Mermaid reads
            // as syntax is left.
            let separator = line.hasPrefix("    participant") ? " as " : ": "
            guard let start = line.firstRange(of: separator)?.upperBound else { continue }
            let bare = line[start...].replacing("<br/>", with: "").replacing(#/#\w+;/#, with: "")
            for forbidden in ["#", ";", "\"", "<", ">", "%", "\\"] {
                #expect(!bare.contains(forbidden), "unescaped \(forbidden) in \(line.prefix(200))")
            }
        }
        let mark = source.split(separator: "\n").first { $0.contains("◆") }.map(String.init) ?? ""
        #expect(Self.decodeMermaid(mark).contains("◆ " + readable.prefix(40)))
    }

    @Test func plantUML() throws {
        let source = PlantUMLSequenceRenderer.render(trace, diagnoses: diagnoses)
        let lines = source.split(separator: "\n")
        #expect(lines.first == "@startuml" && lines.last == "@enduml")
        #expect(lines.filter { $0 == "@enduml" }.count == 1, "a label ended the diagram early")
        #expect(lines.filter { $0 == "end note" }.count == 1, "a label ended the note early")
        let participants = lines.filter { $0.hasPrefix("participant ") }
        #expect(source.count(where: { $0 == "\\" }) == participants.count,
                "a backslash other than the line break in each participant's name would start a PlantUML escape")
        let mark = lines.first { $0.contains("◆") }.map(String.init) ?? ""
        #expect(Self.decodePlantUML(mark).contains("◆ " + readable.prefix(40)))
        try OutputCheck.checkPlantUML(source)
    }

    @Test func perfetto() throws {
        let json = PerfettoTraceRenderer.render(trace)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let events = try #require(root["traceEvents"] as? [[String: Any]])
        let process = events.first { $0["name"] as? String == "process_name" }
        // Names, the process's too, are cleaned and cut as every picture's are; an argument
        // holds the text as written, cut at TraceText.limit.
        let processName = try #require((process?["args"] as? [String: Any])?["name"] as? String)
        #expect(processName == DisplayText(SampleTraces.hostileText, limit: DisplayText.nameLimit).short)
        #expect(processName.hasPrefix(readable.prefix(40)))
        let value = events.first { $0["cat"] as? String == "value" && $0["ph"] as? String == "B" }
        let shownValue = try #require((value?["args"] as? [String: Any])?["value"] as? String)
        #expect(shownValue.count == TraceText.limit && shownValue.hasSuffix("…"))
        #expect(SampleTraces.hostileText.hasPrefix(shownValue.dropLast()))
        for event in events {
            let name = event["name"] as? String ?? ""
            #expect(name.count <= 120 && !name.unicodeScalars.contains { $0.value < 0x20 })
        }
    }

    /// One statement of the Mermaid Lifeline writes, a line each.
    nonisolated(unsafe) static let mermaidStatement = #/^(sequenceDiagram|    participant L\d+ as [^\n]+|    L\d+-?->>L\d+: [^\n]+|    (de)?activate L\d+|    Note (over L\d+(,L\d+)?|right of L\d+): [^\n]+|    rect [^\n]+|    end)$/#

    /// Mermaid's entity codes decoded, as Mermaid does before drawing.
    static func decodeMermaid(_ text: String) -> String {
        var result = text
        for (code, character) in [("#quot;", "\""), ("#lt;", "<"), ("#gt;", ">"), ("#amp;", "&")] {
            result = result.replacingOccurrences(of: code, with: character)
        }
        return result.replacing(#/#(\d+);/#) { String(UnicodeScalar(UInt32($0.output.1)!)!) }
    }

    /// PlantUML's character references decoded, as PlantUML does when drawing.
    static func decodePlantUML(_ text: String) -> String {
        text.replacingOccurrences(of: "<U+005C>", with: "\\")
            .replacing(#/&#(\d+);/#) { String(UnicodeScalar(UInt32($0.output.1)!)!) }
    }
}
