/// How a recorder writes its events (docs/LogFormat.md).
public enum TraceLogFormat: String, Hashable, Sendable, CaseIterable {
    /// Events as compact binary records, between JSON lines for the header, declarations,
    /// snapshots and call sites (log format version 9). About 36 bytes per event, and the
    /// cheaper to record. `lifeline export` turns such a log into JSON Lines.
    case binary
    /// Every line JSON (log format version 8), the documented interchange format.
    case jsonLines = "jsonl"
}
