import Foundation
import LifelineLog

/// The pipelines of a trace listed for people (a table) or for tools (JSON): id, name, hops,
/// values, state at stop, and the findings that cite each one. A pipeline still open when an
/// unfinished log ended is `waiting`, on the stage where its `waits-on` chain ends
/// (``Pipeline/waitsOn``; `waitsOn` in JSON).
///
/// Findings are numbered from 1 in the order ``TraceAnalyzer`` gives them, the order
/// `lifeline diagnose --format json` lists them and `--finding N` counts them.
///
/// ```
/// id  name                     hops  values  state      findings
/// P1  SearchViewModel.swift:18    6       2  live       -
/// P2  Sink #31                    1       3  cancelled  2
/// ```
public struct PipelineReport: Sendable {
    /// The value of the JSON report's `format` field.
    public static let formatName = "lifeline-pipelines"
    /// The JSON schema version.
    public static let version = 1

    /// The trace.
    public let trace: Trace
    /// Its pipelines.
    public let pipelines: TracePipelines
    /// The findings, in ``TraceAnalyzer`` order.
    public let diagnoses: [Diagnosis]

    /// Creates a report.
    public init(trace: Trace, pipelines: TracePipelines, diagnoses: [Diagnosis]) {
        self.trace = trace
        self.pipelines = pipelines
        self.diagnoses = diagnoses
    }

    /// The numbers of the findings that cite each pipeline.
    public var findingsByPipeline: [Pipeline.ID: [Int]] {
        var result: [Pipeline.ID: [Int]] = [:]
        for (index, cited) in pipelines.pipelines(citedBy: diagnoses).enumerated() {
            for id in cited { result[id, default: []].append(index + 1) }
        }
        return result
    }

    /// The table, ending with a newline.
    public func renderText() -> String {
        guard !pipelines.pipelines.isEmpty else { return "No pipelines recorded in \(trace.events.count) events.\n" }
        let findings = findingsByPipeline
        let header = ["id", "name", "hops", "values", "state", "findings"]
        let rows = pipelines.pipelines.map { pipeline -> [String] in
            var state = pipeline.state.rawValue
            if let waitsOn = pipeline.waitsOn { state += " on \(waitsOn.onOneLine)" }
            if !pipeline.sharesUpstreamWith.isEmpty {
                state += " (shares upstream with \(pipeline.sharesUpstreamWith.map(\.description).joined(separator: ", ")))"
            }
            return [
                pipeline.id.description, pipeline.name.onOneLine, "\(pipeline.lifecycles.count)", "\(pipeline.values)",
                state, findings[pipeline.id].map { $0.map(String.init).joined(separator: ", ") } ?? "-",
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        let rightAligned: Set<Int> = [2, 3]
        let lines = ([header] + rows).map { row in
            row.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - row[column].count)
                if column == row.count - 1 { return row[column] }
                return rightAligned.contains(column) ? padding + row[column] : row[column] + padding
            }.joined(separator: "  ")
        }
        var text = lines.joined(separator: "\n") + "\n"
        let count = pipelines.pipelines.count
        text += "\n\(count) pipeline\(count == 1 ? "" : "s"), \(diagnoses.count) finding\(diagnoses.count == 1 ? "" : "s")"
        text += " (numbered as `lifeline render --finding N` counts them).\n"
        return text
    }

    /// The JSON document, pretty-printed with sorted keys, ending with a newline.
    public func renderJSON() -> String {
        let findings = findingsByPipeline
        let document = Document(
            format: Self.formatName, version: Self.version,
            pipelines: pipelines.pipelines.map { pipeline in
                Entry(
                    id: pipeline.id.description, name: pipeline.name, label: pipeline.label,
                    sourceLocation: pipeline.sourceLocation, hops: pipeline.lifecycles.count, values: pipeline.values,
                    state: pipeline.state.rawValue, findings: findings[pipeline.id, default: []],
                    sharesUpstreamWith: pipeline.sharesUpstreamWith.map(\.description),
                    objects: pipeline.objects.map(\.rawValue),
                    firstEvent: pipeline.events.first, lastEvent: pipeline.events.last, waitsOn: pipeline.waitsOn
                )
            }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(document)) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private struct Document: Encodable {
        let format: String
        let version: Int
        let pipelines: [Entry]
    }

    private struct Entry: Encodable {
        let id: String
        let name: String
        let label: String?
        let sourceLocation: String?
        let hops: Int
        let values: Int
        let state: String
        let findings: [Int]
        let sharesUpstreamWith: [String]
        let objects: [UInt64]
        let firstEvent: UInt64?
        let lastEvent: UInt64?
        let waitsOn: String?
    }
}
