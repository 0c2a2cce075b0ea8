import ArgumentParser
import Foundation
import LifelineAnalysis
import LifelineRender

/// `lifeline diff BASE NEW`: what changed between two recordings of the same program.
struct DiffCommand: ParsableCommand {
    /// How the comparison is written.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        /// Text for people.
        case text
        /// JSON for tools.
        case json
        /// A changed pipeline's sequence diagrams side by side, before | after, as an SVG.
        case svg
    }

    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two recordings of a program: findings new, resolved and unchanged, and how each pipeline changed.",
        discussion: """
            Findings are matched by fingerprint, pipelines by the line of the program that made \
            them (or their .lifeline label) and their order among those made there, never by \
            ids or event numbers, which differ between runs. A resolved finding says what became \
            of its pipeline in the new log. Objects alive at stop are counted per type when both \
            logs have a snapshot taken at stop. The exit status is 0 when the logs do not \
            differ, 1 when they do (with --new-only, only when the new log has a finding the \
            base lacks), and 2 when a log can't be read. --format svg draws a changed pipeline's \
            sequence diagrams side by side, before | after, fitting 1,200 px: the first changed \
            pipeline, or the one --pipeline names by its line (as the text report heads it).
            """
    )

    @Argument(help: "The base recording (.lifeline, binary or JSON Lines): before the change.")
    var base: String

    @Argument(help: "The recording to judge against it: after the change.")
    var new: String

    @Option(help: "The report format: text for people, json for tools.")
    var format: Format = .text

    @Flag(help: "Exit with 1 only when the new log has findings the base lacks: resolved findings and changed pipelines pass.")
    var newOnly = false

    @Option(help: ArgumentHelp(
        "With --format svg, the changed pipeline to draw, as the report names it: the line that made it, with its position when the line made several (File.swift:42 (2nd)).",
        valueName: "pipeline"
    ))
    var pipeline: String?

    @Option(help: ArgumentHelp(
        "With --format svg, the colours: auto follows the viewer's light or dark mode, light and dark bake one palette in.",
        valueName: "auto|light|dark"
    ))
    var theme: PictureTheme = .auto

    @Option(name: .shortAndLong, help: "With --format svg, the file to write. Default: standard output.")
    var output: String?

    func validate() throws {
        if format != .svg && (pipeline != nil || theme != .auto || output != nil) {
            throw ValidationError("--pipeline, --theme and --output apply to --format svg only")
        }
    }

    func run() throws {
        // The two logs are read at once; an unreadable base is reported first.
        let (base, new) = (self.base, self.new)
        let (baseLifecycles, newLifecycles) = try BothAtOnce.run(
            { TraceLifecycles(try TraceFile.read(base)) }, { TraceLifecycles(try TraceFile.read(new)) }
        )
        let comparison = TraceComparison(base: baseLifecycles, new: newLifecycles)
        let report = ComparisonReport(comparison: comparison)
        switch format {
        case .text: print(report.renderText(), terminator: "")
        case .json: print(report.renderJSON(), terminator: "")
        case .svg: try CommandFailure.reporting { try drawChangedPipeline(of: comparison) }
        }
        let differs = newOnly ? !comparison.newFindings.isEmpty : comparison.hasDifferences
        if differs { throw ExitCode(1) }
    }

    /// Draws the changed pipeline `--pipeline` names, or the first, before | after; exits with 2
    /// when no pipeline changed or none has that name.
    private func drawChangedPipeline(of comparison: TraceComparison) throws {
        if let output { try OutputFile.checkWritable(output, readingFrom: base) }
        if let output { try OutputFile.checkWritable(output, readingFrom: new) }
        let changes = comparison.changedPipelines
        guard let change = pipeline.map({ name in changes.first { $0.key.description == name } }) ?? changes.first else {
            let known = changes.map(\.key.description)
            StandardError.write(known.isEmpty
                ? "error: no pipeline changed between \(base) and \(new): nothing to draw"
                : "error: no changed pipeline is named \(pipeline ?? ""); the changed ones: \(known.joined(separator: ", "))")
            throw ExitCode(2)
        }
        let side = { (side: TraceComparison.Side, pipeline: Pipeline, heading: String) in
            SideBySideSequenceRenderer.Side(
                trace: side.lifecycles.trace, diagnoses: side.diagnoses, pipelines: side.pipelines, pipeline: pipeline, heading: heading
            )
        }
        let picture = try SideBySideSequenceRenderer.render(
            title: "Pipeline \(change.key.description), before and after",
            before: side(comparison.base, change.base, "before: \((base as NSString).lastPathComponent) (\(change.base.id))"),
            after: side(comparison.new, change.new, "after: \((new as NSString).lastPathComponent) (\(change.new.id))"),
            appearance: theme.svgAppearance
        )
        if let output {
            try OutputFile.write(picture, to: output)
        } else {
            print(picture, terminator: "")
        }
    }
}
