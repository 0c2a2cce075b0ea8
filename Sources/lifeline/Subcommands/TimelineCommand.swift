import ArgumentParser
import LifelineAnalysis
import LifelineRender

/// `lifeline timeline TRACE`: the per-hop timeline of a log.
struct TimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Print who called what on whom, on which thread, with the demand."
    )

    @Argument(help: "The trace log to read (.lifeline, binary or JSON Lines).")
    var trace: String

    @Flag(help: "Leave out event times, for output that is compared or committed.")
    var noTimes = false

    @Flag(help: "List each object's full type name, generic arguments included (the log always keeps it).")
    var fullTypes = false

    @OptionGroup(title: "Choosing what to show")
    var selection: PictureSelectionOptions

    func run() throws {
        let whole = try TraceFile.read(trace)
        let findings = selection.finding != nil ? TraceAnalyzer().diagnose(whole) : []
        let trace = try selection.apply(to: whole, path: self.trace, diagnoses: findings).trace
        print(TimelineRenderer(showsTimes: !noTimes, showsFullTypes: fullTypes).render(trace), terminator: "")
    }
}
