import Foundation
import LifelineLog

/// A ``TraceComparison`` written for people (text) or for tools (JSON), the output of
/// `lifeline diff BASE NEW`.
///
/// ```
/// Findings: 1 new, 0 resolved, 2 unchanged
///   new       warning cancelled-immediately (63c1d4a9e1f0b2c7): Sink #3 (FeedScreen.swift:20) was cancelled …
///             in FeedScreen.swift:20
/// Pipelines: 3 in both (2 unchanged, 1 changed), 0 only in the base log, 0 only in the new log
///   changed   FeedScreen.swift:20: live → cancelled, 2 → 0 values
/// Alive at stop: no change
/// ```
///
/// The same two logs always give the same bytes.
public struct ComparisonReport: Sendable {
    /// The value of the JSON report's `format` field.
    public static let formatName = "lifeline-diff"
    /// The JSON schema version.
    public static let version = 1

    /// The comparison.
    public let comparison: TraceComparison

    /// Creates a report.
    public init(comparison: TraceComparison) {
        self.comparison = comparison
    }

    /// The text, ending with a newline.
    public func renderText() -> String {
        let comparison = comparison
        var lines = [
            "Findings: \(comparison.newFindings.count) new, \(comparison.resolvedFindings.count) resolved, "
                + "\(comparison.unchangedFindings.count) unchanged",
        ]
        for diagnosis in comparison.newFindings {
            lines.append("  new       \(Self.heading(diagnosis))")
            if let pipeline = Self.pipeline(citedBy: diagnosis, in: comparison.new) { lines.append("            in \(pipeline.name)") }
        }
        for diagnosis in comparison.resolvedFindings {
            lines.append("  resolved  \(Self.heading(diagnosis))")
            if let now = comparison.newPipeline(for: diagnosis) { lines.append("            now: \(Self.outcome(of: now, in: comparison.new))") }
        }
        let both = comparison.unchangedPipelineCount + comparison.changedPipelines.count
        lines.append(
            "Pipelines: \(both) in both (\(comparison.unchangedPipelineCount) unchanged, \(comparison.changedPipelines.count) changed), "
                + "\(comparison.removedPipelines.count) only in the base log, \(comparison.addedPipelines.count) only in the new log"
        )
        for change in comparison.changedPipelines {
            lines.append("  changed   \(change.key): \(Self.change(from: change.base, to: change.new))")
        }
        for pipeline in comparison.removedPipelines {
            lines.append("  removed   \(pipeline.name): \(Self.summary(of: pipeline))")
        }
        for pipeline in comparison.addedPipelines {
            lines.append("  added     \(pipeline.name): \(Self.summary(of: pipeline))")
        }
        if comparison.base.aliveAtStop == nil || comparison.new.aliveAtStop == nil {
            lines.append("Alive at stop: unknown (a log without a snapshot taken at stop)")
        } else if comparison.aliveChanges.isEmpty {
            lines.append("Alive at stop: no change")
        } else {
            lines.append("Alive at stop:")
            for change in comparison.aliveChanges { lines.append("  \(change.typeName): \(change.base) → \(change.new)") }
        }
        return lines.map(\.onOneLine).joined(separator: "\n") + "\n"
    }

    /// The JSON document, pretty-printed with sorted keys, ending with a newline.
    public func renderJSON() -> String {
        let comparison = comparison
        func finding(_ diagnosis: Diagnosis, in side: TraceComparison.Side) -> Finding {
            Finding(
                code: diagnosis.code, severity: diagnosis.severity.rawValue, fingerprint: diagnosis.fingerprint,
                message: diagnosis.message, pipeline: Self.pipeline(citedBy: diagnosis, in: side)?.name
            )
        }
        func entry(_ pipeline: Pipeline) -> PipelineEntry {
            PipelineEntry(name: pipeline.name, state: pipeline.state.rawValue, values: pipeline.values, hops: pipeline.lifecycles.count)
        }
        let document = Document(
            format: Self.formatName, version: Self.version,
            findings: Findings(
                new: comparison.newFindings.map { finding($0, in: comparison.new) },
                resolved: comparison.resolvedFindings.map { diagnosis in
                    var resolved = finding(diagnosis, in: comparison.base)
                    resolved.now = comparison.newPipeline(for: diagnosis).map { Self.outcome(of: $0, in: comparison.new) }
                    return resolved
                },
                unchanged: comparison.unchangedFindings.map { finding($0, in: comparison.new) }
            ),
            pipelines: Pipelines(
                unchanged: comparison.unchangedPipelineCount,
                changed: comparison.changedPipelines.map { Change(key: $0.key.description, base: entry($0.base), new: entry($0.new)) },
                removed: comparison.removedPipelines.map(entry), added: comparison.addedPipelines.map(entry)
            ),
            aliveAtStop: comparison.base.aliveAtStop == nil || comparison.new.aliveAtStop == nil
                ? nil : comparison.aliveChanges.map { Alive(type: $0.typeName, base: $0.base, new: $0.new) }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(document)) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private static func heading(_ diagnosis: Diagnosis) -> String {
        "\(diagnosis.severity.rawValue) \(diagnosis.code) (\(diagnosis.fingerprint)): \(diagnosis.message)"
    }

    /// The first pipeline `diagnosis` cites in `side`.
    private static func pipeline(citedBy diagnosis: Diagnosis, in side: TraceComparison.Side) -> Pipeline? {
        side.pipelines.pipelines(citedBy: diagnosis).first.flatMap(side.pipelines.pipeline)
    }

    /// `finished, 3 values; Sink #3 deallocated at @9`.
    private static func outcome(of pipeline: Pipeline, in side: TraceComparison.Side) -> String {
        let subscriber = side.lifecycles.lifecycle(pipeline.end).subscriber
        let death = side.lifecycles.deallocations[subscriber].map { "; \(side.lifecycles.name(subscriber)) deallocated at @\($0.seq)" }
        return "\(pipeline.name) \(summary(of: pipeline))\(death ?? "")"
    }

    private static func summary(of pipeline: Pipeline) -> String {
        "\(pipeline.state.rawValue), \(pipeline.values) \(pipeline.values == 1 ? "value" : "values"), "
            + "\(pipeline.lifecycles.count) \(pipeline.lifecycles.count == 1 ? "hop" : "hops")"
    }

    /// `live → cancelled, 2 → 0 values`: what differs.
    private static func change(from base: Pipeline, to new: Pipeline) -> String {
        var parts: [String] = []
        if base.state != new.state { parts.append("\(base.state.rawValue) → \(new.state.rawValue)") }
        if base.values != new.values { parts.append("\(base.values) → \(new.values) values") }
        if base.lifecycles.count != new.lifecycles.count { parts.append("\(base.lifecycles.count) → \(new.lifecycles.count) hops") }
        return parts.joined(separator: ", ")
    }

    private struct Document: Encodable {
        let format: String
        let version: Int
        let findings: Findings
        let pipelines: Pipelines
        let aliveAtStop: [Alive]?
    }

    private struct Findings: Encodable {
        let new: [Finding]
        let resolved: [Finding]
        let unchanged: [Finding]
    }

    private struct Finding: Encodable {
        let code: String
        let severity: String
        let fingerprint: String
        let message: String
        let pipeline: String?
        var now: String?
    }

    private struct Pipelines: Encodable {
        let unchanged: Int
        let changed: [Change]
        let removed: [PipelineEntry]
        let added: [PipelineEntry]
    }

    private struct Change: Encodable {
        let key: String
        let base: PipelineEntry
        let new: PipelineEntry
    }

    private struct PipelineEntry: Encodable {
        let name: String
        let state: String
        let values: Int
        let hops: Int
    }

    private struct Alive: Encodable {
        let type: String
        let base: Int
        let new: Int
    }
}
