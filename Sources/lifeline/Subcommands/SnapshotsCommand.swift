import ArgumentParser
import LifelineLog

/// `lifeline snapshots TRACE`: the ownership snapshots a log holds, one a line, with what
/// `--at` accepts to name each.
struct SnapshotsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshots",
        abstract: "List the ownership snapshots in a trace log.",
        discussion: """
            One line per snapshot, in the order they were taken: its number, the event it \
            follows, why it was taken (requested by Lifeline.snapshot(_:), or automatic after a \
            subscribe, completion or cancel, or at stop), how many objects and references it \
            holds, and its label. Give the label or the event number (@153) to --at in `lifeline \
            graph`, `lifeline render --format graph-svg` and `lifeline why`. A log without \
            snapshots lists none and says how to record them.
            """
    )

    @Argument(help: "The trace log to read (.lifeline, binary or JSON Lines).")
    var trace: String

    func run() throws {
        let trace = try TraceFile.read(self.trace)
        print(SnapshotList(trace: trace).render(), terminator: "")
    }
}
