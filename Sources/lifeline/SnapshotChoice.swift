import ArgumentParser
import LifelineLog

/// Picks the ownership snapshot a command works on: the one `--at` names, or the log's last.
/// A log without snapshots, or an `--at` that names none, is reported on standard error and
/// ends the command with exit status 2.
enum SnapshotChoice {
    /// The snapshot `reference` names in `trace` (read from `path`): the last with that label,
    /// or the last taken at or before that event number (`@153` or `153`); the last snapshot when
    /// `reference` is `nil`.
    static func snapshot(in trace: Trace, from path: String, at reference: String?) throws -> TraceSnapshot {
        guard let last = trace.snapshots.last else {
            StandardError.write(
                "error: \(path) has no ownership snapshot: record with the default options (one at stop) or "
                    + "RecordingOptions(snapshots: .everyCall), or take one with Lifeline.snapshot(\"label\")"
            )
            throw ExitCode(2)
        }
        guard let reference else { return last }
        // An event number is written `@153` wherever Lifeline prints one (`#153` is an object).
        let eventNumber = reference.hasPrefix("@") && trace.snapshots.allSatisfy { $0.label != reference } ? String(reference.dropFirst()) : reference
        if let snapshot = trace.snapshot(at: eventNumber) { return snapshot }
        let shown = labelsToSuggest(in: trace)
        StandardError.write(
            "error: \(path): no snapshot matches --at \(reference): give a label (\(shown)) or an event number "
                + "at or after @\(trace.snapshots[0].seq), the event the first snapshot follows; "
                + "`lifeline snapshots \(path)` lists them all"
        )
        throw ExitCode(2)
    }

    /// Up to ten labels, quoted: the user's own (from `Lifeline.snapshot(_:)`) first, then the
    /// automatic ones, each label once, in the order taken.
    static func labelsToSuggest(in trace: Trace) -> String {
        let ordered = trace.snapshots.filter { $0.reason == .requested } + trace.snapshots.filter { $0.reason != .requested }
        var seen: Set<String> = []
        let labels = ordered.map(\.label).filter { seen.insert($0).inserted }
            .map { "\"\(TraceText.printable($0, limit: 80))\"" }
        return labels.count > 10 ? labels.prefix(10).joined(separator: ", ") + ", …" : labels.joined(separator: ", ")
    }
}
