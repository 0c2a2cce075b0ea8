import ArgumentParser
import LifelineRender

/// `lifeline timeline TRACE`: the per-hop timeline of a log.
struct TimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Print who called what on whom, on which thread, with the demand."
    )

    @Argument(help: "The trace log (.jsonl) to read.")
    var trace: String

    @Flag(help: "Leave out event times, for output that is compared or committed.")
    var noTimes = false

    func run() throws {
        let trace = try TraceFile.read(trace)
        print(TimelineRenderer(showsTimes: !noTimes).render(trace), terminator: "")
    }
}
