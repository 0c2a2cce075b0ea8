import LifelineLog

/// Checks a log could not support, so a report can say what it did not look at and how to
/// record a log that supports them.
public struct SkippedCheck: Hashable, Sendable {
    /// What was not checked, in words: `retain cycles and leaks at stop`.
    public let what: String
    /// The diagnosis codes not checked, with a qualifier where only part of a code was
    /// skipped (`leaked-subscription at stop`).
    public let checks: [String]
    /// Why, in words.
    public let reason: String
    /// How to record a log that supports them, or `nil` when nothing the user can do helps.
    public let remedy: String?

    /// The checks `trace` could not support:
    /// - without an ownership snapshot, `retain-cycle` and `leaked-subscription` at stop;
    /// - when the log does not show how recording ended (not closed, or events dropped),
    ///   `demand-stalled` and `leaked-subscription`.
    public static func skipped(in trace: Trace) -> [SkippedCheck] {
        var skipped: [SkippedCheck] = []
        if trace.snapshots.isEmpty {
            skipped.append(SkippedCheck(
                what: "retain cycles and leaks at stop",
                checks: ["retain-cycle", "leaked-subscription at stop"],
                reason: "the log has no ownership snapshot",
                remedy: "take one with Lifeline.snapshot(_:) before recording stops, or record with "
                    + "RecordingOptions(snapshots: .atStop), the default"
            ))
        }
        if !TraceLifecycles.endIsKnown(trace.damage) {
            skipped.append(SkippedCheck(
                what: "checks about the end of the recording",
                checks: ["demand-stalled", "leaked-subscription"],
                reason: "the log does not show how recording ended",
                remedy: nil
            ))
        }
        return skipped
    }

    /// The skipped checks as one sentence for people: `retain cycles and leaks at stop
    /// were not checked (retain-cycle, leaked-subscription at stop): the log has no ownership
    /// snapshot; take one with …`.
    public var sentence: String {
        "\(what) were not checked (\(checks.joined(separator: ", "))): \(reason)" + (remedy.map { "; \($0)" } ?? "") + "."
    }
}
