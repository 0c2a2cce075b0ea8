import ArgumentParser
import LifelineAnalysis
import LifelineLog
import LifelineRender

/// The options every picture command shares to choose what it draws: `--pipeline`,
/// `--between` and `--finding`.
struct PictureSelectionOptions: ParsableArguments {
    @Option(name: .customLong("pipeline"), help: ArgumentHelp(
        "Draw only this pipeline: its id from `lifeline pipelines` (P3), its .lifeline label or its call site. Repeatable.",
        valueName: "id|label"
    ))
    var pipelines: [String] = []

    @Option(name: .customLong("between"), parsing: .upToNextOption, help: ArgumentHelp(
        "Draw only the events between two marks (Lifeline.mark): the label of the opening mark and of the closing one.",
        valueName: "mark"
    ))
    var between: [String] = []

    @Option(name: .customLong("finding"), help: ArgumentHelp(
        "Draw only the objects and events finding N cites, numbered as `lifeline pipelines` and `diagnose --format json` list them.",
        valueName: "N"
    ))
    var finding: Int?

    func validate() throws {
        guard between.isEmpty || between.count == 2 else {
            throw ValidationError("--between takes two mark labels: the one that opens the range and the one that closes it")
        }
        if let finding, finding < 1 { throw ValidationError("--finding counts from 1") }
    }

    /// The selection the options describe.
    var selection: TraceSelection {
        TraceSelection(
            pipelines: pipelines, between: between.count == 2 ? .init(from: between[0], to: between[1]) : nil, finding: finding)
    }

    /// Narrows `trace` and its findings to the selection; an unknown pipeline, mark or finding
    /// is reported with the ones the log has, and ends the command with exit status 2.
    /// `lifecycles`, those of `trace` when the command rebuilt them, find its pipelines.
    func apply(to trace: Trace, path: String, diagnoses: [Diagnosis], lifecycles: TraceLifecycles? = nil) throws -> TraceSelection.Selected {
        do {
            let known = pipelines.isEmpty ? nil : lifecycles.map(TracePipelines.init)
            return try selection.apply(to: trace, diagnoses: diagnoses, pipelines: known)
        } catch {
            StandardError.write("error: \(path): \(error)")
            throw ExitCode(2)
        }
    }
}
