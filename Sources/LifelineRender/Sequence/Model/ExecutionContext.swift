/// A thread or dispatch queue that calls ran on, as the legend shows it.
struct ExecutionContext: Hashable, Sendable {
    /// The position in the legend, which also picks the colour: `main` is 0 when present.
    let index: Int
    /// `main`, a queue label, or a thread's name.
    let name: String
}
