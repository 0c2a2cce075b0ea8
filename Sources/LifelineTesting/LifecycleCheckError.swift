/// Why a ``LifecycleCheck`` could not judge the block it ran.
public enum LifecycleCheckError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The log lacks the marks that delimit the block, so what the block created can't be
    /// told apart; the log's damage says why (for example, events dropped past its capacity).
    case scopeNotRecorded(damage: [String])

    public var description: String {
        switch self {
        case .scopeNotRecorded(let damage):
            let reason = damage.isEmpty ? "" : " (\(damage.joined(separator: "; ")))"
            return "the recording lost the marks around the checked block\(reason), so it can't be checked"
        }
    }
}
