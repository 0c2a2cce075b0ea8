import Foundation

/// What one measured stretch of the benchmark took: the calling thread's CPU time, which the
/// other processes of a loaded machine hardly change, and the monotonic clock's time, which a
/// debounce or a timeout in the program sees (time off CPU, page faults and waits, included).
struct Elapsed: Codable, Comparable {
    /// CPU nanoseconds of the calling thread.
    var cpu: Double
    /// Wall-clock nanoseconds.
    var wall: Double

    static let zero = Elapsed(cpu: 0, wall: 0)

    /// Runs `body` and returns what it took.
    static func measure(_ body: () throws -> Void) rethrows -> Elapsed {
        let cpu = ValueChain.nanoseconds(CLOCK_THREAD_CPUTIME_ID), wall = ValueChain.nanoseconds(CLOCK_MONOTONIC)
        try body()
        return Elapsed(
            cpu: Double(ValueChain.nanoseconds(CLOCK_THREAD_CPUTIME_ID) - cpu),
            wall: Double(ValueChain.nanoseconds(CLOCK_MONOTONIC) - wall)
        )
    }

    /// Ordered by CPU time, the figure the benchmark's medians are taken on.
    static func < (lhs: Elapsed, rhs: Elapsed) -> Bool { lhs.cpu < rhs.cpu }

    static func - (lhs: Elapsed, rhs: Elapsed) -> Elapsed { Elapsed(cpu: lhs.cpu - rhs.cpu, wall: lhs.wall - rhs.wall) }

    /// Both times divided by `count`: the time of one of `count` equal parts.
    func per(_ count: Int) -> Elapsed { Elapsed(cpu: cpu / Double(count), wall: wall / Double(count)) }

    /// Both times divided by `divisor`, or nil when it is not positive (no events recorded).
    func divided(by divisor: Double) -> Elapsed? {
        divisor > 0 ? Elapsed(cpu: cpu / divisor, wall: wall / divisor) : nil
    }

    /// Both times multiplied by `factor`: a change of unit.
    func scaled(_ factor: Double) -> Elapsed { Elapsed(cpu: cpu * factor, wall: wall * factor) }

    /// The median of `samples` by CPU time.
    static func median(_ samples: [Elapsed]) -> Elapsed { samples.sorted()[samples.count / 2] }
}
