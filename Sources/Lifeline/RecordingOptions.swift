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

    /// Creates options.
    ///
    /// - Parameters:
    ///   - automatic: Record every pipeline (the default), or only `.lifeline(_:)` hops.
    ///   - valueDescriptionLimit: Record value descriptions cut to this many characters.
    ///   - logCapacity: The log's size limit in bytes.
    public init(automatic: Bool = true, valueDescriptionLimit: Int? = nil, logCapacity: Int = 64 << 30) {
        self.automatic = automatic
        self.valueDescriptionLimit = valueDescriptionLimit
        self.logCapacity = logCapacity
    }
}
