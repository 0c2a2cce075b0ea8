/// How a marble diagram is drawn.
public struct MarbleDiagramOptions: Hashable, Sendable {
    /// What the horizontal axis measures.
    public enum Axis: String, Hashable, Sendable, CaseIterable {
        /// Event order: each delivery gets its own column, so a value's path down the chain
        /// reads as a diagonal. Readable whatever the timing.
        case sequence
        /// Elapsed time since the first event, to scale: shows bursts, gaps and how long a
        /// thread hop took. Marbles that would overlap on a timeline are moved apart just
        /// enough to read, so a burst reads as a row of touching marbles.
        case time
    }

    /// What the horizontal axis measures. `.sequence` by default.
    public var axis: Axis
    /// Whether long runs of identical deliveries are collapsed into one `× N` column.
    public var folding: Bool
    /// Which colours the SVG carries.
    public var appearance: SVGAppearance

    /// Creates options.
    ///
    /// - Parameters:
    ///   - axis: What the horizontal axis measures.
    ///   - folding: Whether to collapse long runs of identical deliveries.
    ///   - appearance: Which colours the SVG carries.
    public init(axis: Axis = .sequence, folding: Bool = true, appearance: SVGAppearance = .adaptive) {
        self.axis = axis
        self.folding = folding
        self.appearance = appearance
    }
}
