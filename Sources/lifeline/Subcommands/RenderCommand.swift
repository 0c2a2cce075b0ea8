import ArgumentParser
import LifelineAnalysis
import LifelineLog
import LifelineRender

/// `lifeline render TRACE --format FORMAT`: draws a log as a picture, with its diagnoses.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Draw a trace log as a sequence diagram, marble diagram or Perfetto trace.",
        discussion: """
            The sequence diagrams (svg, mermaid, plantuml) show what `lifeline diagnose` finds \
            as notes at the events that prove it. The output is deterministic: the same log \
            gives the same bytes. Ownership graphs (dot, graph-svg, graph-png) are not available \
            yet: logs do not carry ownership snapshots so far.
            """
    )

    @Argument(help: "The trace log (.jsonl) to read.")
    var trace: String

    @Option(name: .shortAndLong, help: "What to draw.")
    var format: RenderFormat

    @Option(name: .shortAndLong, help: "The file to write. Default: standard output.")
    var output: String?

    @Flag(help: "Draw every call: do not collapse long runs of identical calls into one row.")
    var noFold = false

    @Flag(help: "Marble diagrams: lay values out by elapsed time instead of by event order.")
    var time = false

    func validate() throws {
        if time && format != .marbles {
            throw ValidationError("--time applies to the marble diagram only (--format marbles)")
        }
    }

    func run() throws {
        if let output { try OutputFile.checkWritable(output) }
        let trace = try ProgressIndicator.run("reading \(self.trace)") { try TraceFile.read(self.trace) }
        let picture = ProgressIndicator.run("drawing the \(format.pictureName) of \(trace.events.count) events") {
            let diagnoses = format == .svg || format == .mermaid || format == .plantuml ? TraceAnalyzer().diagnose(trace) : []
            return format.render(trace, diagnoses: diagnoses, folding: !noFold, axis: time ? .time : .sequence)
        }
        if let output {
            try OutputFile.write(picture, to: output)
        } else {
            print(picture, terminator: "")
        }
    }
}
