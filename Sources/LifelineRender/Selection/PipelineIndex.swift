import LifelineAnalysis
import LifelineLog

/// The Markdown page that `render --split` writes beside its pictures: one row per
/// pipeline, linking its picture, with the findings that cite it.
///
/// ```swift
/// let page = PipelineIndex(trace: trace, diagnoses: findings, fileName: { "\($0).svg" }).markdown()
/// ```
public struct PipelineIndex: Sendable {
    /// The whole trace.
    public let trace: Trace
    /// Its pipelines.
    public let pipelines: TracePipelines
    /// Its findings, in ``TraceAnalyzer`` order (numbered from 1).
    public let diagnoses: [Diagnosis]
    /// The picture file of each pipeline, relative to the page.
    public let fileName: @Sendable (Pipeline.ID) -> String
    /// The pipelines that have a picture.
    public let drawn: Set<Pipeline.ID>

    /// Creates the index of `trace`'s pipelines: those in `drawn`, or all. `pipelines`, when
    /// the caller has found them already, are not found again.
    public init(
        trace: Trace, diagnoses: [Diagnosis], drawn: Set<Pipeline.ID>? = nil, pipelines: TracePipelines? = nil,
        fileName: @escaping @Sendable (Pipeline.ID) -> String
    ) {
        self.trace = trace
        self.pipelines = pipelines ?? TracePipelines(TraceLifecycles(trace))
        self.diagnoses = diagnoses
        self.drawn = drawn ?? Set(self.pipelines.pipelines.map(\.id))
        self.fileName = fileName
    }

    /// The page, ending with a newline.
    public func markdown() -> String {
        let findings = PipelineReport(trace: trace, pipelines: pipelines, diagnoses: diagnoses).findingsByPipeline
        var page = """
            # Pipelines of \(Self.cell(trace.header.processName))

            One picture per pipeline: the chain of hops one top-level subscribe made (see \
            `lifeline pipelines`). Findings are numbered as `lifeline render --finding N` counts them.

            | Pipeline | Name | Hops | Values | State | Findings |
            |---|---|---|---|---|---|

            """
        for pipeline in pipelines.pipelines where drawn.contains(pipeline.id) {
            let cited = findings[pipeline.id, default: []]
            let findingCell = cited.isEmpty ? "none" : cited.map { "[\($0)](#finding-\($0))" }.joined(separator: ", ")
            let state = pipeline.state.rawValue + (pipeline.waitsOn.map { " on " + Self.cell($0) } ?? "")
            page += "| [\(pipeline.id)](\(fileName(pipeline.id))) | \(Self.cell(pipeline.name)) | \(pipeline.lifecycles.count) "
                + "| \(pipeline.values) | \(state) | \(findingCell) |\n"
        }
        if !diagnoses.isEmpty {
            page += "\n## Findings\n"
            // The pipelines each finding cites, in pipeline order, from the table's findings.
            var citations = [[Pipeline.ID]](repeating: [], count: diagnoses.count)
            for pipeline in pipelines.pipelines {
                for number in findings[pipeline.id, default: []] { citations[number - 1].append(pipeline.id) }
            }
            for (index, diagnosis) in diagnoses.enumerated() {
                let cited = citations[index].filter(drawn.contains).map { "[\($0)](\(fileName($0)))" }.joined(separator: ", ")
                page += "\n<a id=\"finding-\(index + 1)\"></a>\(index + 1). **\(diagnosis.severity.rawValue) "
                    + "\(diagnosis.code)** (\(cited.isEmpty ? "no pipeline" : cited)): \(Self.cell(diagnosis.message))\n"
            }
        }
        return page
    }

    /// Text made safe for one Markdown table cell or line: the program's text escaped and capped
    /// as every text output does (``TraceText``), then Markdown's own characters.
    private static func cell(_ text: String) -> String {
        var result = ""
        for scalar in TraceText.printable(text).unicodeScalars {
            switch scalar {
            case "|": result += "\\|"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "&": result += "&amp;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
