/// The first line of every Lifeline log: what wrote it and how to read its clock.
public struct TraceHeader: Hashable, Sendable {
    /// The value of the header's `format` field.
    public static let formatName = "lifeline-trace"
    /// The last log format version of JSON lines whose object lines write their type out: what
    /// `lifeline export` writes for a version 6 or 7 log. Version 2 added snapshot lines,
    /// version 3 call-site lines, version 4 delta snapshot lines (a snapshot line with a `base`),
    /// version 5 per-call snapshots that take the nodes they did not check from earlier
    /// snapshots.
    static let untypedJSONLinesVersion = 5
    /// The first log format version with binary event records (``TraceLogFormat/binary``):
    /// version 5 with events as binary records and `clock` lines.
    public static let binaryVersion = 6
    /// Version 6 with each thread's records in chunks of the file it reserved, whose unused ends
    /// are filler bytes (`0x83`) when recording stopped and zero bytes when it was killed.
    public static let chunkedBinaryVersion = 7
    /// Version 5 with `type` lines, each naming a type once, that object lines refer to by
    /// number.
    public static let typedJSONLinesVersion = 8
    /// Version 7 with the `type` lines of version 8.
    public static let typedBinaryVersion = 9
    /// The log format version this build writes for a log of JSON lines: version 8 with `hang`
    /// lines, the moments the recorder saw the program hanging (``TraceHang``).
    public static let jsonLinesVersion = 10
    /// The log format version this build writes for a log of binary event records: version 9
    /// with the `hang` lines of version 10.
    public static let currentBinaryVersion = 11
    /// The newest log format version this build reads and writes.
    public static let currentVersion = currentBinaryVersion
    /// The log format versions this build reads. A version 1 log is a version 2 log without
    /// snapshots, a version 2 log a version 3 log without call sites, a version 3 log a
    /// version 4 log without delta snapshots, a version 4 log a version 5 log whose
    /// snapshots all checked every node, a version 5 log a version 6 log without binary
    /// records, a version 6 log a version 7 log whose records were written one reservation
    /// each, a version 5 or 7 log a version 8 or 9 log without type lines, and a version 8 or 9
    /// log a version 10 or 11 log without hang lines.
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
    /// In a version 6 log whose binary records are timed by the processor's time-stamp
    /// counter: one reading of it with the event time it stands for, and its rate as measured
    /// when recording started. `nil` when records carry nanoseconds, and in JSON logs.
    public let ticks: TickReference?

    /// How a version 6 log's time-stamp counter relates to event times: `tsc` ticked at event
    /// time `time` (nanoseconds since the clock's origin), about `perSecond` times a second.
    public struct TickReference: Hashable, Sendable {
        /// A reading of the time-stamp counter.
        public let tsc: UInt64
        /// The event time it was taken at.
        public let time: UInt64
        /// Ticks per second, measured over a short interval at the start: what converts the
        /// times of a log that ended before any `clock` line.
        public let perSecond: UInt64

        /// Creates a tick reference.
        public init(tsc: UInt64, time: UInt64, perSecond: UInt64) {
            self.tsc = tsc
            self.time = time
            self.perSecond = perSecond
        }
    }

    /// How this log writes its events: binary records in versions 6, 7, 9 and 11.
    public var format: TraceLogFormat {
        Self.isBinary(version: version) ? .binary : .jsonLines
    }

    /// Whether a log of version `version` writes its events as binary records.
    static func isBinary(version: Int) -> Bool {
        [binaryVersion, chunkedBinaryVersion, typedBinaryVersion, currentBinaryVersion].contains(version)
    }

    /// Whether the log may hold `type` lines, and object lines that name their type by the
    /// number of one: versions 8 on.
    var namesTypes: Bool {
        version >= Self.typedJSONLinesVersion
    }

    /// Whether the log may hold `hang` lines: versions 10 and 11.
    var recordsHangs: Bool {
        version >= Self.jsonLinesVersion
    }

    /// Creates a header.
    public init(
        version: Int = TraceHeader.jsonLinesVersion, processID: UInt64, processName: String,
        startedAt: String, clockSource: String = "CLOCK_MONOTONIC", clockOrigin: UInt64,
        valueDescriptionLimit: Int?, ticks: TickReference? = nil
    ) {
        self.ticks = ticks
        self.version = version
        self.processID = processID
        self.processName = processName
        self.startedAt = startedAt
        self.clockSource = clockSource
        self.clockOrigin = clockOrigin
        self.valueDescriptionLimit = valueDescriptionLimit
    }
}
