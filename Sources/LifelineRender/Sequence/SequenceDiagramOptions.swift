import LifelineAnalysis

/// How a sequence diagram is drawn.
public struct SequenceDiagramOptions: Hashable, Sendable {
    /// Whether each pipeline's operators get lanes of their own.
    public enum Collapse: String, Hashable, Sendable, CaseIterable {
        /// Fold the operators only when the diagram would not fit ``pageWidth`` otherwise.
        case auto
        /// Always fold each pipeline's operators into one lane between its sources and its
        /// subscriber, leaving out the calls between them.
        case operators
        /// Give every object its own lane.
        case none
    }

    /// The width a page gives a picture, in pixels: 1,200 by default, a doc page's width.
    public static let defaultPageWidth = 1_200

    /// Whether long runs of identical call patterns are collapsed into one row such as
    /// `× 998 values`. On by default, so a million-value trace stays readable; events a
    /// diagnosis cites are never collapsed.
    public var folding: Bool
    /// Whether each pipeline's operators get lanes of their own; `.auto` by default.
    public var collapse: Collapse
    /// The width the SVG tries to fit: lanes are packed closer and, with `.auto`, operators
    /// folded until it does. A picture that still does not fit is drawn wider.
    public var pageWidth: Int
    /// Which colours an SVG carries. Text formats ignore it.
    public var appearance: SVGAppearance
    /// The number each finding's note carries. Empty (the default) numbers the findings in
    /// ``TraceAnalyzer``'s order, the order
    /// `lifeline diagnose --format json` lists them and `--finding N` counts them; a picture
    /// of part of a trace passes the whole trace's numbers so that they stay the same.
    public var findingNumbers: [Diagnosis: Int] = [:]

    /// Creates options.
    ///
    /// - Parameters:
    ///   - folding: Whether to collapse long runs of identical call patterns.
    ///   - collapse: Whether each pipeline's operators get lanes of their own.
    ///   - pageWidth: The width to fit, in pixels.
    ///   - appearance: Which colours an SVG carries.
    public init(
        folding: Bool = true, collapse: Collapse = .auto, pageWidth: Int = defaultPageWidth,
        appearance: SVGAppearance = .adaptive
    ) {
        self.folding = folding
        self.collapse = collapse
        self.pageWidth = pageWidth
        self.appearance = appearance
    }
}
