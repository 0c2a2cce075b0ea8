/// A drawing style for an outline or an edge, named as in Graphviz.
public enum DotStyle: String, Hashable, Sendable, CaseIterable {
    /// A continuous line.
    case solid
    /// A dashed line.
    case dashed
    /// A dotted line.
    case dotted
    /// A thicker line.
    case bold
    /// A node filled with its ``DotAttribute/fillColor(_:)``.
    case filled
    /// A box with rounded corners.
    case rounded
    /// Not drawn at all: a node or edge that only shapes the layout.
    case invisible = "invis"
}
