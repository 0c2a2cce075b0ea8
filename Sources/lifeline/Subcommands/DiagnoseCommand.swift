import ArgumentParser
import Foundation
import LifelineAnalysis
import LifelineLog

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
            recording stopped are reported as leaked-subscription; when the two marks repeat \
            (a scenario run again and again, each run followed by Lifeline.snapshot), what each \
            run leaves more of than the run before, from the run after --warm-up on, is \
            reported as lifecycle-growth. With --baseline, only \
            findings whose fingerprint the baseline lacks are reported and count for the exit \
            status; the known ones are counted, and the baseline's findings no longer found are \
            listed as resolved. docs/Diagnoses.md lists every code and the JSON schema.
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

    @Option(
        name: .customLong("warm-up"),
        help: ArgumentHelp(
            "With a repeated --scope, how many of the first runs may leave things behind without growing.", valueName: "runs"
        )
    )
    var warmUp = 1

    @Option(
        help: ArgumentHelp(
            "Accept the findings of a baseline: a JSON report of lifeline diagnose, or a list of fingerprints, one per line.",
            valueName: "file"
        )
    )
    var baseline: String?

    func validate() throws {
        guard scopeMarks.isEmpty || scopeMarks.count == 2 else {
            throw ValidationError("--scope takes two mark labels: the one that opens the scope and the one that closes it")
        }
        guard warmUp >= 0 else {
            throw ValidationError("--warm-up takes a number of runs, 0 or more")
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
            if let growth = growthRule(in: trace) { rules.append(growth) }
        }
        let accepted = try baseline.map(Self.readBaseline)
        let lifecycles = TraceLifecycles(trace)
        let found = TraceAnalyzer(rules: rules).diagnose(lifecycles)
        let (diagnoses, known) = accepted?.split(found) ?? (found, [])
        switch format {
        case .text:
            // Pipelines tell apart subscriptions one line made several times, in their headings;
            // a log without such findings has no headings to write.
            let headed = diagnoses.contains { $0.hop != nil }
            let report = TextDiagnosisReport(
                trace: trace, diagnoses: diagnoses, pipelines: headed ? TracePipelines(lifecycles) : nil,
                library: LibraryFinding.find(in: lifecycles), accepted: accepted.map { _ in known.count }
            )
            print(report.render(), terminator: "")
            if let accepted, let baseline {
                print(Self.baselineSection(known: known, resolved: accepted.resolved(given: found), baseline: baseline), terminator: "")
            }
        case .json:
            print(JSONDiagnosisReport(trace: trace, diagnoses: diagnoses, library: LibraryFinding.find(in: lifecycles)).render(), terminator: "")
        }
        let status = ExitStatusPolicy(strict: strict).exitStatus(for: diagnoses)
        if status != 0 { throw ExitCode(status) }
    }

    /// The `lifecycle-growth` rule for the runs of a repeated `--scope`, or `nil` when its marks
    /// open one run only. When the runs can't show growth (too few, or without a snapshot after
    /// each), it says so on standard error: the rule finds nothing in them.
    private func growthRule(in trace: Trace) -> LifecycleGrowthRule? {
        let runs = ObservedScope.repetitions(in: trace, beginMark: scopeMarks[0], endMark: scopeMarks[1])
        guard runs.count > 1 else { return nil }
        let growth = LifecycleGrowthRule(repetitions: runs, warmUp: warmUp)
        let least = max(warmUp, 1) + LifecycleGrowthRule.growingRepetitions
        let uncounted = growth.uncountedRepetitions(in: trace)
        if runs.count < least {
            StandardError.write(
                "note: lifecycle-growth was not checked: \(runs.count) runs between the marks with a warm-up of \(warmUp) "
                    + "can't show growth; it takes at least \(least)"
            )
        } else if uncounted > 0 {
            StandardError.write(
                "note: lifecycle-growth was not checked: \(uncounted) of the \(runs.count) runs between the marks have no "
                    + "ownership snapshot after them; take one with Lifeline.snapshot(_:) after each closing mark"
            )
        }
        return growth
    }

    /// The most bytes a baseline may hold: a fingerprint line is 17 bytes.
    private static let largestBaseline = 64 << 20

    /// The baseline at `path`; exits with 2, saying why, when it can't be read. Only a regular
    /// file is read, so an endless input (`/dev/zero`) is refused at once.
    private static func readBaseline(_ path: String) throws -> DiagnosisBaseline {
        let text: String
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            guard attributes[.type] as? FileAttributeType == .typeRegular else {
                StandardError.write("error: cannot read the baseline \(path): it is not a regular file")
                throw ExitCode(2)
            }
            guard (attributes[.size] as? NSNumber)?.intValue ?? 0 <= largestBaseline else {
                StandardError.write("error: cannot read the baseline \(path): it holds more than \(largestBaseline >> 20) MiB, "
                    + "far more than any baseline")
                throw ExitCode(2)
            }
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            StandardError.write("error: cannot read the baseline \(path): \(error.localizedDescription)")
            throw ExitCode(2)
        }
        do {
            return try DiagnosisBaseline(reading: text)
        } catch {
            StandardError.write("error: \(path) is no baseline: \(error.description)")
            throw ExitCode(2)
        }
    }

    /// What the baseline accounted for, after the report: the known findings left out, and the
    /// baseline's findings no longer found.
    private static func baselineSection(known: [Diagnosis], resolved: [String], baseline: String) -> String {
        var lines = ["", "Baseline \(baseline)"]
        let counts = Dictionary(grouping: known, by: \.code).map { "\($0.value.count) \($0.key)" }.sorted()
        lines.append(known.isEmpty ? "  no known finding was found again"
            : "  \(known.count) known finding\(known.count == 1 ? "" : "s") not shown (\(counts.joined(separator: ", ")))")
        lines.append(resolved.isEmpty ? "  every finding of the baseline was found again"
            : "  resolved, no longer found: " + resolved.joined(separator: ", "))
        return lines.joined(separator: "\n") + "\n"
    }
}
