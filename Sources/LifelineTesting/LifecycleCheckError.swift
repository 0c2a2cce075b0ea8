import LifelineAnalysis

/// Why a ``LifecycleCheck`` could not judge the block it ran.
public enum LifecycleCheckError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The log lacks the marks that delimit the block, so what the block created can't be
    /// told apart; the log's damage says why (for example, events dropped past its capacity).
    case scopeNotRecorded(damage: [String])
    /// A repeated scenario was given too few runs to show growth: after the warm-up, three
    /// runs must each leave more behind than the run before (and the first run is never
    /// compared with one before it).
    case tooFewIterations(Int, warmUp: Int)

    public var description: String {
        switch self {
        case .scopeNotRecorded(let damage):
            let reason = damage.isEmpty ? "" : " (\(damage.joined(separator: "; ")))"
            return "the recording lost the marks around the checked block\(reason), so it can't be checked"
        case .tooFewIterations(let iterations, let warmUp):
            let growing = LifecycleGrowthRule.growingRepetitions
            return "\(iterations) iterations with a warm-up of \(warmUp) can't show growth: it takes at least "
                + "\(max(warmUp, 1) + growing), \(growing) runs after the warm-up that each leave more behind than the run before"
        }
    }
}
