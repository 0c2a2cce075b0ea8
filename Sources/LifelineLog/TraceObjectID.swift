/// A Lifeline-assigned identity of one object in one trace.
///
/// Ids are small integers handed out in order of first sight. They are never memory
/// addresses: an address is reused by the next allocation as soon as an object dies, so it
/// cannot tell two objects apart over time.
public struct TraceObjectID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The number written in the log.
    public let rawValue: UInt64

    /// Wraps a number read from or written to the log.
    public init(_ rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public static func < (lhs: TraceObjectID, rhs: TraceObjectID) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    public var description: String { "#\(rawValue)" }
}
