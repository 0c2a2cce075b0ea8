/// The direction in which a layered layout places its ranks.
public enum DotRankDirection: String, Hashable, Sendable, CaseIterable {
    /// Top to bottom.
    case topToBottom = "TB"
    /// Left to right.
    case leftToRight = "LR"
    /// Bottom to top.
    case bottomToTop = "BT"
    /// Right to left.
    case rightToLeft = "RL"
}
