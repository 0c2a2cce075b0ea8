/// How many of one kind of thing were left after each repetition of a scenario, and whether
/// that number grows with the repetitions.
struct GrowthSeries: Hashable, Sendable {
    /// The count after each repetition, the first repetition's first.
    let counts: [Int]

    /// The index of the repetition from which every repetition left more than the one before,
    /// to the last, when at least ``LifecycleGrowthRule/growingRepetitions`` did and none of them is a warm-up;
    /// otherwise `nil`.
    ///
    /// - Parameter warmUp: How many repetitions, from the first, may fill caches and start
    ///   services: the first counted rise is the one after them.
    func growthStart(warmUp: Int) -> Int? {
        var start = counts.count
        while start > max(warmUp, 1), counts[start - 1] > counts[start - 2] { start -= 1 }
        return counts.count - start >= LifecycleGrowthRule.growingRepetitions ? start : nil
    }

    /// The counts for a sentence: all of them, or the first five and the last three of a long
    /// series (`1, 2, 3, 4, 5, …, 48, 49, 50`).
    var listed: String {
        let shown = counts.count <= 12
            ? counts.map(String.init)
            : counts.prefix(5).map(String.init) + ["…"] + counts.suffix(3).map(String.init)
        return shown.joined(separator: ", ")
    }
}
