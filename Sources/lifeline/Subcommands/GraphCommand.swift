import ArgumentParser
import LifelineAnalysis
import LifelineRender

/// `lifeline graph TRACE [--at LABEL|SEQ] [-o FILE.dot]`: one ownership snapshot as Graphviz
/// DOT source.
struct GraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Write an ownership snapshot of a trace as a Graphviz DOT graph.",
        discussion: """
            Objects are styled by kind, with their reference counts; strong references are \
            solid, weak ones dashed, unowned ones dotted, each labelled with its field. Retain \
            cycles are drawn in red and deallocated objects in grey. Draws the last snapshot, or \
            the one --at names. Exits with 2 when the log has no snapshot (record with \
            the default options, which take one at stop, RecordingOptions(snapshots: .everyCall) \
            or Lifeline.snapshot(_:)) or --at \
            matches none. With --pipeline or --finding, draws the chosen objects and the \
            objects within three references of them; with --between, a snapshot taken between \
            the marks. `lifeline render --format graph-svg` lays the graph out.
            """
    )

    @Argument(help: "The trace log to read (.lifeline, binary or JSON Lines).")
    var trace: String

    @Option(name: .customLong("at"), help: ArgumentHelp(
        "The snapshot, by label or by event number, as in @153 (the last taken at or before that event). Default: the last snapshot.",
        valueName: "label|@seq"
    ))
    var snapshotReference: String?

    @Option(name: .shortAndLong, help: "The .dot file to write. Default: standard output.")
    var output: String?

    @OptionGroup(title: "Choosing what to draw")
    var selection: PictureSelectionOptions

    func run() throws {
        try CommandFailure.reporting(write)
    }

    private func write() throws {
        if let output { try OutputFile.checkWritable(output, readingFrom: trace) }
        let whole = try TraceFile.read(self.trace)
        let findings = selection.finding != nil ? TraceAnalyzer().diagnose(whole) : []
        let trace = try selection.apply(to: whole, path: self.trace, diagnoses: findings).trace
        let snapshot = try SnapshotChoice.snapshot(in: trace, from: self.trace, at: snapshotReference)
        let dot = OwnershipDOTRenderer.render(snapshot, in: trace)
        if let output {
            try OutputFile.write(dot, to: output)
        } else {
            print(dot, terminator: "")
        }
    }
}
