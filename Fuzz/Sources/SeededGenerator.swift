/// SplitMix64: a small, fast random number generator whose whole sequence follows from its
/// seed, so that every fuzz input can be made again from the campaign's seed and its number.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    /// The generator for input `index` of a campaign seeded with `seed`.
    init(seed: UInt64, index: Int) {
        state = seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: index) &* 0xBF58_476D_1CE4_E5B9
        _ = next()
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
