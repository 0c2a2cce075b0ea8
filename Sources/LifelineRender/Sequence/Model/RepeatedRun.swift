/// A run of identical rows that folding left out.
struct RepeatedRun: Hashable, Sendable {
    /// How many times the repeated block was left out.
    let repeats: Int
    /// What one repetition is, plural: "values", "requests", "repetitions".
    let noun: String
    /// The first and last sequence numbers left out.
    let seqs: ClosedRange<UInt64>
    /// The leftmost and rightmost lanes the left-out rows touch.
    let lanes: ClosedRange<Int>

    /// `× 998 values (@12–@5000)`.
    var summary: String { "× \(repeats) \(noun) (@\(seqs.lowerBound)–@\(seqs.upperBound))" }
}
