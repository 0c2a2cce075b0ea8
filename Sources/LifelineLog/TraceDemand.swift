/// A Combine demand as it appears in a trace: a bounded count or unlimited.
///
/// In the log a bounded demand is a JSON number and an unlimited one is the string
/// `"unlimited"`.
public enum TraceDemand: Hashable, Sendable, CustomStringConvertible {
    /// At most this many values.
    case max(Int)
    /// No limit.
    case unlimited

    /// Zero demand, `Subscribers.Demand.none`.
    public static let none = TraceDemand.max(0)

    public var description: String {
        switch self {
        case .max(let count): return "max(\(count))"
        case .unlimited: return "unlimited"
        }
    }

    /// Adds two demands the way Combine does: unlimited absorbs everything.
    public static func + (lhs: TraceDemand, rhs: TraceDemand) -> TraceDemand {
        switch (lhs, rhs) {
        case (.max(let a), .max(let b)):
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? .unlimited : .max(sum)
        default:
            return .unlimited
        }
    }
}
