import LifelineLog

/// How Lifeline records.
///
/// The defaults record every pipeline, no value descriptions, and one reference-graph
/// snapshot when recording stops, so that a retain cycle still alive at stop is found, to a
/// log of binary event records (`lifeline export` turns it into JSON Lines):
///
/// ```swift
/// try Lifeline.start(writingTo: "trace.jsonl")                       // the defaults
/// try Lifeline.start(writingTo: "trace.jsonl", options: RecordingOptions(
///     valueDescriptionLimit: 80, snapshots: .everyCall))             // values, and every snapshot
/// ```
///
/// `Lifeline.start(writingTo:options:)` rejects options it cannot honour with
/// ``LifelineError/invalidOptions(_:)``, before anything is recorded.
public struct RecordingOptions: Sendable, Hashable {
    /// When Lifeline takes reference-graph snapshots by itself. `Lifeline.snapshot(_:)` takes
    /// one whenever the program asks, under every policy.
    public enum SnapshotPolicy: String, Sendable, Hashable, CaseIterable {
        /// Never: the log has only the snapshots the program asks for, so retain cycles and
        /// leaks at stop are checked only from those.
        case none
        /// Once, when recording stops (the default). It inspects every live object the
        /// recorder knows, which costs milliseconds, once.
        case atStop
        /// After every subscribe, after every completion and cancel, and when recording
        /// stops. Each one after a call, on the thread that made it, reads again the call's
        /// objects and checks the memory of 32 others in turn, so its cost does not grow with
        /// the live objects; it is written as what changed, with the nodes it checked, and the
        /// others are as an earlier snapshot found them. The stop snapshot reads everything.
        case everyCall
    }

    /// The smallest ``logCapacity`` accepted, in bytes: room for the header and a few hundred
    /// events.
    public static let minimumLogCapacity = 64 << 10

    /// The shortest ``watchdog`` period accepted.
    public static let shortestWatchdog = Duration.milliseconds(10)

    /// Whether every pipeline in the process is recorded through Combine's introspection
    /// hook. When `false`, only hops marked with `.lifeline(_:)` are recorded, at a lower cost.
    public var automatic: Bool
    /// The longest value description to record, in characters (at least 1), or `nil` to
    /// record no value descriptions. Off by default: values can be large or private.
    public var valueDescriptionLimit: Int?
    /// The largest the log file may grow, in bytes (at least ``minimumLogCapacity``). Events
    /// past it are dropped and counted in the log's end record.
    public var logCapacity: Int
    /// When Lifeline takes reference-graph snapshots by itself; at stop by default.
    public var snapshots: SnapshotPolicy
    /// Whether to keep the call stack of each top-level subscribe and cancel, so that findings
    /// and diagrams name the line of the program that made each pipeline and say who cancelled
    /// it. On by default: a capture costs a few microseconds per pipeline (not per value), and
    /// the stacks are symbolicated once, on a low-priority thread while recording runs and, for
    /// what that thread has not reached, when recording stops.
    public var callSites: Bool
    /// How the log writes events: as binary records (the default: about 36 bytes each), or as
    /// JSON lines (the documented interchange format: about 93 bytes each, and about 1.6 times
    /// the recording cost per event). Every `lifeline` command reads both, and
    /// `lifeline export` turns a binary log into JSON Lines.
    public var logFormat: TraceLogFormat
    /// How long no event may happen while pipelines are open before the recorder writes a
    /// hang record and a snapshot to the log (see `Lifeline.watchdog(after:)`); `nil`, the
    /// default, for no watchdog. At least 10 ms.
    public var watchdog: Duration?

    /// Creates options.
    ///
    /// - Parameters:
    ///   - automatic: Record every pipeline (the default), or only `.lifeline(_:)` hops.
    ///   - valueDescriptionLimit: Record value descriptions cut to this many characters.
    ///   - logCapacity: The log's size limit in bytes.
    ///   - snapshots: When to take reference-graph snapshots: at stop (the default), never,
    ///     or after every call as well.
    ///   - callSites: Record where the program made each pipeline and who cancelled it.
    ///   - logFormat: Write events as binary records (the default) or as JSON lines.
    ///   - watchdog: Write a hang record when no event happens for this long while pipelines
    ///     are open; `nil` (the default) for no watchdog.
    public init(
        automatic: Bool = true, valueDescriptionLimit: Int? = nil, logCapacity: Int = 64 << 30,
        snapshots: SnapshotPolicy = .atStop, callSites: Bool = true, logFormat: TraceLogFormat = .binary,
        watchdog: Duration? = nil
    ) {
        self.watchdog = watchdog
        self.logFormat = logFormat
        self.automatic = automatic
        self.valueDescriptionLimit = valueDescriptionLimit
        self.logCapacity = logCapacity
        self.snapshots = snapshots
        self.callSites = callSites
    }

    /// Throws when the options can't be honoured.
    func validate() throws(LifelineError) {
        if let limit = valueDescriptionLimit, limit < 1 {
            throw .invalidOptions(
                "valueDescriptionLimit is \(limit); it must be at least 1, or nil to record no value descriptions"
            )
        }
        if let watchdog, watchdog < Self.shortestWatchdog {
            throw .invalidOptions("watchdog is \(watchdog); it must be at least 10 ms, or nil for no watchdog")
        }
        if logCapacity < Self.minimumLogCapacity {
            throw .invalidOptions(
                "logCapacity is \(logCapacity) bytes; it must be at least \(Self.minimumLogCapacity) (64 KiB)"
            )
        }
    }
}
