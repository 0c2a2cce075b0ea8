import LifelineLog

/// The recorded death of one object.
public struct Deallocation: Hashable, Sendable {
    /// The object that died.
    public let object: TraceObjectID
    /// The sequence number of the deallocation event. The object was dead by then.
    public let seq: UInt64
    /// For a death found by a liveness check, the sequence number at which the object was last
    /// seen alive: it died after that event. `nil` for a death seen as it happened.
    public let lastSeenAlive: UInt64?

    /// Creates a deallocation record.
    public init(object: TraceObjectID, seq: UInt64, lastSeenAlive: UInt64?) {
        self.object = object
        self.seq = seq
        self.lastSeenAlive = lastSeenAlive
    }
}
