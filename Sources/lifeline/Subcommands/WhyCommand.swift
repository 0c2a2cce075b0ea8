import ArgumentParser
import LifelineAnalysis
import LifelineLog

/// `lifeline why TRACE OBJECT-ID [--at LABEL|SEQ]`: what kept an object alive in a snapshot,
/// as the shortest chain of strong references in words.
struct WhyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "why",
        abstract: "Explain what keeps an object alive: the shortest chain of strong references to it.",
        discussion: """
            The chain starts at a root registered with Lifeline.track(_:name:), or at an object \
            nothing in the graph holds, or it is the retain cycle the object hangs from. Looks at \
            the last snapshot, or the one --at names. OBJECT-ID is the number in `Sink #7` \
            (7 or #7). Exits with 2 when the log has no snapshot, --at matches none, or the id \
            is unknown.
            """
    )

    @Argument(help: "The trace log to read (.lifeline, binary or JSON Lines).")
    var trace: String

    @Argument(help: ArgumentHelp("The object's id, as in `Sink #7`.", valueName: "object-id"))
    var object: String

    @Option(name: .customLong("at"), help: ArgumentHelp(
        "The snapshot, by label or by event number, as in @153 (the last taken at or before that event). Default: the last snapshot.",
        valueName: "label|@seq"
    ))
    var snapshotReference: String?

    func run() throws {
        let trace = try TraceFile.read(self.trace)
        guard let raw = UInt64(object.hasPrefix("#") ? String(object.dropFirst()) : object) else {
            StandardError.write("error: \(object) is not an object id: give the number in `Sink #7`, as 7 or #7")
            throw ExitCode(2)
        }
        let id = TraceObjectID(raw)
        guard let declared = trace.object(id) else {
            StandardError.write("error: \(self.trace) has no object \(id)")
            throw ExitCode(2)
        }
        let snapshot = try SnapshotChoice.snapshot(in: trace, from: self.trace, at: snapshotReference)
        let graph = OwnershipGraph(snapshot: snapshot, trace: trace)
        let explanation = TraceLifecycles(trace).whyAlive(id, in: graph)
        let subject = TraceText.printable(declared.displayName)
        let moment = "In snapshot \(snapshot.index) \"\(TraceText.printable(snapshot.label))\" (after event @\(snapshot.seq))"
        // Root names, field names and type names in the chain are the program's text: escaped,
        // so that they cannot add lines or reach the terminal as control sequences.
        if explanation == .unknown {
            print(TraceText.escaped("\(moment), \(subject) is not in the graph: the snapshot did not reach it."))
        } else {
            print(TraceText.escaped("\(moment), \(graph.sentence(explaining: explanation, subject: subject))."))
            if let counts = graph.countSentence(of: id, subject: subject) { print(TraceText.escaped(counts)) }
        }
        // A per-call snapshot shows the objects it did not check as an earlier one found them.
        if let oldest = snapshot.lastChecked.values.min() {
            print("Snapshot \(snapshot.index) checked \(snapshot.nodes.count - snapshot.lastChecked.count) of its "
                + "\(snapshot.nodes.count) objects; it shows the others as earlier snapshots found them, the oldest after "
                + "event @\(oldest)\(snapshot.checked(id) ? "" : ", \(subject) among them").")
        }
    }
}
