/// How a sequence diagram is drawn.
public struct SequenceDiagramOptions: Hashable, Sendable {
    /// Whether long runs of identical call patterns are collapsed into one row such as
    /// `× 998 values`. On by default, so a million-value trace stays readable; events a
    /// diagnosis cites are never collapsed.
    public var folding: Bool
    /// Which colours an SVG carries. Text formats ignore it.
    public var appearance: SVGAppearance

    /// Creates options.
    ///
    /// - Parameters:
    ///   - folding: Whether to collapse long runs of identical call patterns.
    ///   - appearance: Which colours an SVG carries.
    public init(folding: Bool = true, appearance: SVGAppearance = .adaptive) {
        self.folding = folding
        self.appearance = appearance
    }
}
