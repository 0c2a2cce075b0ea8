import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import LifelineLog
import Testing

/// A log whose every name, label, value and diagnosis-bound text is hostile, written to disk
/// and read back by `lifeline render`: every format comes out valid.
@Suite struct HostileLogTests {
    static let hostileText = "quote\" back\\slash <tag>&amp; new\nline\r tab\t bell\u{07} nul\u{0} del\u{7F} "
        + "#35; ;%% --> -->> @enduml \\n **b** //i// 🧵 \u{202E}rtl " + String(repeating: "x", count: 20_000)

    /// A subscriber that is found dead while its subscription still had demand, so the
    /// analyzer has something to say about the hostile names.
    private func hostileLog() -> Data {
        var bytes = Data()
        let add = { (line: UnsafeRawBufferPointer) in bytes.append(contentsOf: line) }
        let text = Self.hostileText
        let publisher = TraceObjectID(1), subscriber = TraceObjectID(2), subscription = TraceObjectID(3)
        TraceLineEncoder.withLine(for: TraceHeader(processID: 1, processName: text, startedAt: "2026-11-23T08:00:00Z",
                                                   clockOrigin: 0, valueDescriptionLimit: 30_000), add)
        for (id, role) in [(publisher, TraceObjectRole.publisher), (subscriber, .subscriber), (subscription, .subscription)] {
            TraceLineEncoder.withLine(for: TraceObject(id: id, role: role, typeName: text, shortTypeName: text, label: text,
                                                       sourceLocation: TraceSourceLocation(fileAndLine: text), lifetimeTracked: true), add)
        }
        TraceLineEncoder.withLine(for: TraceThread(tid: 1, name: text), add)
        TraceLineEncoder.withLine(for: TraceQueue(id: 1, label: text), add)
        let kinds: [(TraceEvent.Phase, TraceEvent.Kind)] = [
            (.begin, .subscribe(publisher: publisher, subscriber: subscriber)),
            (.begin, .receiveSubscription(subscriber: subscriber, subscription: subscription)),
            (.begin, .request(subscription: subscription, demand: .max(2))),
            (.end, .request(subscription: subscription, demand: .max(2))),
            (.end, .receiveSubscription(subscriber: subscriber, subscription: subscription)),
            (.end, .subscribe(publisher: publisher, subscriber: subscriber)),
            (.instant, .mark(label: text)),
            (.begin, .value(subscriber: subscriber, returnedDemand: nil, value: text)),
            (.end, .value(subscriber: subscriber, returnedDemand: .max(0), value: text)),
            (.instant, .deallocation(object: subscriber, evidence: .observed(aliveAtSeq: 9))),
        ]
        for (index, (phase, kind)) in kinds.enumerated() {
            TraceLineEncoder.withLine(for: TraceEvent(seq: UInt64(index + 1), time: UInt64(index * 1_000), thread: 1,
                                                      queue: index >= 7 ? 1 : nil, phase: phase, kind: kind), add)
        }
        TraceLineEncoder.withEndLine(events: UInt64(kinds.count), dropped: 0, add)
        return bytes
    }

    private func render(_ format: String, _ extra: [String] = []) throws -> String {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("hostile.jsonl")
        try hostileLog().write(to: log)
        let run = try LifelineExecutable.run(["render", log.path, "--format", format] + extra)
        #expect(run.status == 0, "lifeline render --format \(format) failed: \(run.standardError.prefix(500))")
        let text = String(decoding: run.standardOutput, as: UTF8.self)
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(format): a control character reached the output")
        // Perfetto's JSON keeps the text exactly, as data; every picture shows it cleaned.
        if format != "perfetto" {
            #expect(!text.unicodeScalars.contains("\u{202E}"), "\(format): a direction override reached the picture")
        }
        return text
    }

    @Test(arguments: ["svg", "marbles"]) func svgParsesAsXML(_ format: String) throws {
        for extra in [[], format == "marbles" ? ["--time"] : ["--no-fold"]] {
            let svg = try render(format, extra)
            let parser = XMLParser(data: Data(svg.utf8))
            #expect(parser.parse(), "\(format) \(extra): not well-formed XML: \(String(describing: parser.parserError))")
            #expect(svg.contains("quote&quot; back\\slash &lt;tag&gt;&amp;amp;"), "\(format): the label does not read right")
        }
    }

    @Test func mermaidKeepsOneStatementPerLine() throws {
        let mermaid = try render("mermaid")
        for line in mermaid.split(separator: "\n").dropFirst() {
            #expect(line.hasPrefix("    "), "a label broke out of its statement: \(line.prefix(200))")
            #expect(!line.contains("-->>L") || line.wholeMatch(of: #/    L\d+-->>L\d+: [^\n]+/#) != nil)
        }
        #expect(mermaid.contains("subscriber-deallocated-early"), "the diagnosis note is missing")
    }

    @Test func plantUMLEndsWhereItShould() throws {
        let source = try render("plantuml")
        let lines = source.split(separator: "\n")
        #expect(lines.first == "@startuml" && lines.last == "@enduml")
        #expect(lines.filter { $0 == "@enduml" }.count == 1, "a label ended the diagram early")
        let verdict = try PlantUMLSyntax.verdict(on: source)
        #expect(verdict.hasPrefix("SEQUENCE"), "plantuml -syntax rejects the diagram: \(verdict.prefix(500))")
    }

    /// The process's name is written as every name in a picture: on one line, control
    /// characters as escapes, cut at 120 characters.
    @Test func perfettoIsJSONThatNamesTheProcessOnOneLine() throws {
        let json = try render("perfetto")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let events = try #require(root["traceEvents"] as? [[String: Any]])
        let process = events.first { $0["name"] as? String == "process_name" }
        let name = try #require((process?["args"] as? [String: Any])?["name"] as? String)
        #expect(name.count <= 120 && !name.unicodeScalars.contains { $0.value < 0x20 }, "\(name)")
        #expect(name.hasPrefix(#"quote" back\slash <tag>&amp; new\nline"#), "\(name)")
    }
}
