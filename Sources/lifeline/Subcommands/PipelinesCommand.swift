import ArgumentParser
import LifelineAnalysis

/// `lifeline pipelines TRACE`: the pipelines of a log, the unit every picture can be cut by.
struct PipelinesCommand: ParsableCommand {
    /// How the list is written.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        /// A table for people.
        case text
        /// JSON for tools.
        case json
    }

    static let configuration = CommandConfiguration(
        commandName: "pipelines",
        abstract: "List the pipelines of a trace: id, name, hops, values, state at stop and findings.",
        discussion: """
            A pipeline is the chain of hops one top-level subscribe made, flatMap inners \
            included; a shared upstream (share, multicast) belongs to the pipeline that \
            connected it. Ids (P1, P2…) follow the order of each pipeline's first event, and \
            name it for --pipeline in `lifeline render` and `lifeline timeline`; findings are \
            numbered as --finding counts them. In a log without its end record (a program \
            killed while it hung), a pipeline still open is waiting on the stage where its \
            waits-on chain ends: `waiting on Future #4: its promise was never called`.
            """
    )

    @Argument(help: "The trace log to read (.lifeline, binary or JSON Lines).")
    var trace: String

    @Option(help: "The list format: text for people, json for tools.")
    var format: Format = .text

    func run() throws {
        let trace = try TraceFile.read(trace)
        let lifecycles = TraceLifecycles(trace)
        let report = PipelineReport(
            trace: trace, pipelines: TracePipelines(lifecycles), diagnoses: TraceAnalyzer().diagnose(lifecycles))
        switch format {
        case .text: print(report.renderText(), terminator: "")
        case .json: print(report.renderJSON(), terminator: "")
        }
    }
}
