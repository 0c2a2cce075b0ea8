/// How Lifeline records.
public struct RecordingOptions: Sendable {
    /// Whether every pipeline in the process is recorded through Combine's introspection
    /// hook. When `false`, only hops marked with `.lifeline(_:)` are recorded, at a lower cost.
    public var automatic: Bool
    /// The longest value description to record, in characters, or `nil` to record no value
    /// descriptions. Off by default: values can be large or private.
    public var valueDescriptionLimit: Int?
    /// The largest the log file may grow, in bytes. Events past it are dropped and counted.
    public var logCapacity: Int
    /// Whether to take a reference-graph snapshot automatically after every subscribe, after
    /// every completion and cancel, and when recording stops. Off by default: each snapshot
    /// inspects every live object the recorder knows, on the thread that made the call.
    /// `Lifeline.snapshot(_:)` works either way.
    public var automaticSnapshots: Bool
    /// Whether to keep the call stack of each top-level subscribe and cancel, so that findings
    /// and diagrams name the line of the program that made each pipeline and say who cancelled
    /// it. On by default: a capture costs a few microseconds per pipeline (not per value), and
    /// the stacks are symbolicated once, when recording stops.
    public var callSites: Bool

    /// Creates options.
    ///
    /// - Parameters:
    ///   - automatic: Record every pipeline (the default), or only `.lifeline(_:)` hops.
    ///   - valueDescriptionLimit: Record value descriptions cut to this many characters.
    ///   - logCapacity: The log's size limit in bytes.
    ///   - automaticSnapshots: Take reference-graph snapshots at subscribe, completion,
    ///     cancel and stop.
    ///   - callSites: Record where the program made each pipeline and who cancelled it.
    public init(
        automatic: Bool = true, valueDescriptionLimit: Int? = nil, logCapacity: Int = 64 << 30,
        automaticSnapshots: Bool = false, callSites: Bool = true
    ) {
        self.automatic = automatic
        self.valueDescriptionLimit = valueDescriptionLimit
        self.logCapacity = logCapacity
        self.automaticSnapshots = automaticSnapshots
        self.callSites = callSites
    }
}
