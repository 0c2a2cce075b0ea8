import ArgumentParser
import LifelineAnalysis

/// `lifeline diff BASE NEW`: what changed between two recordings of the same program.
struct DiffCommand: ParsableCommand {
    /// How the comparison is written.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        /// Text for people.
        case text
        /// JSON for tools.
        case json
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
            base lacks), and 2 when a log can't be read.
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
        }
        let differs = newOnly ? !comparison.newFindings.isEmpty : comparison.hasDifferences
        if differs { throw ExitCode(1) }
    }
}
