/// A node outline, named as in Graphviz.
public enum DotShape: String, Hashable, Sendable, CaseIterable {
    /// A rectangle.
    case box
    /// An ellipse, Graphviz's default.
    case ellipse
    /// A hexagon.
    case hexagon
    /// A page with a folded corner.
    case note
    /// A dot, the smallest shape.
    case point
}
