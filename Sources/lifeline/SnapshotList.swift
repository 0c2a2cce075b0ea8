import LifelineLog

/// The table `lifeline snapshots` prints: one row per snapshot, columns aligned.
struct SnapshotList {
    let trace: Trace

    /// What a snapshot's reason reads as in the table.
    static func reasonName(_ reason: TraceSnapshot.Reason) -> String {
        switch reason {
        case .requested: return "requested"
        case .subscribe: return "after subscribe"
        case .completion: return "after completion"
        case .cancel: return "after cancel"
        case .stop: return "at stop"
        case .hang: return "at a hang"
        }
    }

    /// The table, ending in a newline; for a log without snapshots, a sentence saying how to
    /// record them.
    func render() -> String {
        guard !trace.snapshots.isEmpty else {
            return "No ownership snapshots: record with the default RecordingOptions(snapshots: .atStop) or .everyCall, "
                + "or take one with Lifeline.snapshot(\"label\").\n"
        }
        let header = ["snapshot", "after event", "reason", "objects", "references", "label (for --at)"]
        let rows = trace.snapshots.map { snapshot in
            [
                "\(snapshot.index)", "@\(snapshot.seq)", Self.reasonName(snapshot.reason),
                "\(snapshot.nodeCount)", "\(snapshot.edgeCount)", TraceText.printable(snapshot.label),
            ]
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        let numeric: Set<Int> = [0, 3, 4]
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                if column == cells.count - 1 { return cell }
                return numeric.contains(column) ? padding + cell : cell + padding
            }.joined(separator: "  ")
        }
        let requested = trace.snapshots.filter { $0.reason == .requested }.count
        let summary = "\(trace.snapshots.count) snapshot\(trace.snapshots.count == 1 ? "" : "s"), "
            + "\(requested) requested by Lifeline.snapshot(_:), \(trace.snapshots.count - requested) automatic.\n"
        return summary + ([header] + rows).map(line).joined(separator: "\n") + "\n"
    }
}
