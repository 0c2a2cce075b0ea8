/// The first line of every Lifeline log: what wrote it and how to read its clock.
public struct TraceHeader: Hashable, Sendable {
    /// The value of the header's `format` field.
    public static let formatName = "lifeline-trace"
    /// The log format version this build writes. Version 2 added snapshot lines, version 3
    /// call-site lines, version 4 delta snapshot lines (a snapshot line with a `base`), version
    /// 5 per-call snapshots that take the nodes they did not check from earlier snapshots.
    public static let currentVersion = 5
    /// The log format versions this build reads. A version 1 log is a version 2 log without
    /// snapshots, a version 2 log a version 3 log without call sites, a version 3 log a
    /// version 4 log without delta snapshots, and a version 4 log a version 5 log whose
    /// snapshots all checked every node.
    public static let readableVersions = 1...currentVersion

    /// The format version of the log.
    public let version: Int
    /// The recorded process's id.
    public let processID: UInt64
    /// The recorded process's name.
    public let processName: String
    /// Wall-clock start of the recording, ISO 8601 in UTC. For people only: event times use
    /// the monotonic clock.
    public let startedAt: String
    /// The clock event times are measured on.
    public let clockSource: String
    /// The clock reading, in nanoseconds, that event time 0 stands for.
    public let clockOrigin: UInt64
    /// The longest value description recorded, or `nil` when values were not described.
    public let valueDescriptionLimit: Int?

    /// Creates a header.
    public init(
        version: Int = TraceHeader.currentVersion, processID: UInt64, processName: String,
        startedAt: String, clockSource: String = "CLOCK_MONOTONIC", clockOrigin: UInt64,
        valueDescriptionLimit: Int?
    ) {
        self.version = version
        self.processID = processID
        self.processName = processName
        self.startedAt = startedAt
        self.clockSource = clockSource
        self.clockOrigin = clockOrigin
        self.valueDescriptionLimit = valueDescriptionLimit
    }
}
