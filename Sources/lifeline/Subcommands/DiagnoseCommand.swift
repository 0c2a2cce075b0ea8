import ArgumentParser
import LifelineAnalysis

/// `lifeline diagnose TRACE`: what went wrong in the recorded pipelines, with the events that
/// prove it and the fix.
///
/// Exit status: 0 when nothing failed the run, 1 when it found errors (with `--strict`, also
/// warnings), 2 when the log can't be read.
struct DiagnoseCommand: ParsableCommand {
    /// How the findings are written.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        /// For people: grouped by subscription, with timeline excerpts.
        case text
        /// For tools and CI: the stable schema in docs/Diagnoses.md.
        case json
    }

    static let configuration = CommandConfiguration(
        commandName: "diagnose",
        abstract: "Explain leaked, deallocated and misbehaving subscriptions in a trace.",
        discussion: """
            Exits with 0 when no error was found, 1 when errors were found (with --strict, \
            warnings count too), and 2 when the trace can't be read. With --scope, pipelines \
            first seen between the two marks that were still subscribed and alive when \
            recording stopped are reported as leaked-subscription. docs/Diagnoses.md lists \
            every code and the JSON schema.
            """
    )

    @Argument(help: "The trace log to read (.lifeline, binary or JSON Lines).")
    var trace: String

    @Option(help: "The report format: text for people, json for tools.")
    var format: Format = .text

    @Flag(help: "Fail (exit 1) on warnings as well as errors.")
    var strict = false

    @Option(
        name: .customLong("scope"), parsing: .upToNextOption,
        help: ArgumentHelp(
            "Check for leaked subscriptions between two marks: the labels of the mark that opens the scope and of the one that closes it.",
            valueName: "mark"
        )
    )
    var scopeMarks: [String] = []

    func validate() throws {
        guard scopeMarks.isEmpty || scopeMarks.count == 2 else {
            throw ValidationError("--scope takes two mark labels: the one that opens the scope and the one that closes it")
        }
    }

    func run() throws {
        let trace = try TraceFile.read(trace)
        var rules = TraceAnalyzer.standardRules
        if scopeMarks.count == 2 {
            guard let scope = ObservedScope(trace: trace, beginMark: scopeMarks[0], endMark: scopeMarks[1]) else {
                StandardError.write(
                    "error: \(self.trace): no mark \"\(scopeMarks[0])\" followed by a mark \"\(scopeMarks[1])\"; "
                        + "record them with Lifeline.mark(_:)"
                )
                throw ExitCode(2)
            }
            rules.append(LeakedSubscriptionRule(scope: scope))
        }
        let lifecycles = TraceLifecycles(trace)
        let diagnoses = TraceAnalyzer(rules: rules).diagnose(lifecycles)
        switch format {
        case .text:
            // Pipelines tell apart subscriptions one line made several times, in their headings;
            // a log without such findings has no headings to write.
            let headed = diagnoses.contains { $0.hop != nil }
            let report = TextDiagnosisReport(
                trace: trace, diagnoses: diagnoses, pipelines: headed ? TracePipelines(lifecycles) : nil,
                library: LibraryFinding.find(in: lifecycles)
            )
            print(report.render(), terminator: "")
        case .json:
            print(JSONDiagnosisReport(trace: trace, diagnoses: diagnoses, library: LibraryFinding.find(in: lifecycles)).render(), terminator: "")
        }
        let status = ExitStatusPolicy(strict: strict).exitStatus(for: diagnoses)
        if status != 0 { throw ExitCode(status) }
    }
}
