/// A moment the recorder saw the program hanging: a `hang` line (log format versions 10 and 11).
///
/// The recorder writes one when its watchdog saw no event for the time it was given while
/// pipelines were open (`Lifeline.watchdog(after:)`, `LIFELINE_OPTIONS=watchdog=5s`), when the
/// process received `SIGQUIT`, or when a test's check timed out; a snapshot follows it. The
/// log goes on after it: a program that was only slow records more events, and one that hangs
/// is killed with the record in its log.
public struct TraceHang: Hashable, Sendable {
    /// Why the recorder wrote the record.
    public enum Cause: String, Hashable, Sendable, CaseIterable {
        /// The watchdog saw no event for its time while pipelines were open.
        case watchdog
        /// The process received `SIGQUIT`: someone asked.
        case signal
        /// A checked test block ran past its `timeout:`.
        case timeout
    }

    /// The sequence number of the last event recorded before the record (0 before any): the
    /// event the program had reached.
    public let seq: UInt64
    /// When the record was written, in nanoseconds since the clock's origin (in every log
    /// format, also a binary log's).
    public let time: UInt64
    /// How long no event had been recorded then, in nanoseconds.
    public let idle: UInt64
    /// Why it was written.
    public let cause: Cause

    /// Creates a hang record.
    public init(seq: UInt64, time: UInt64, idle: UInt64, cause: Cause) {
        self.seq = seq
        self.time = time
        self.idle = idle
        self.cause = cause
    }
}
