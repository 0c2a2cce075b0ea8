/// How a recorder writes its events (docs/LogFormat.md).
public enum TraceLogFormat: String, Hashable, Sendable, CaseIterable {
    /// Events as compact binary records, between JSON lines for the header, declarations,
    /// snapshots, call sites and hang records (log format version 11). About 36 bytes per
    /// event, and the cheaper to record. `lifeline export` turns such a log into JSON Lines.
    case binary
    /// Every line JSON (log format version 10), the documented interchange format.
    case jsonLines = "jsonl"
}
