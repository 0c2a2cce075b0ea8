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
    /// A box with two small tabs on its left side.
    case component
    /// A cylinder, as for a store.
    case cylinder
    /// An octagon.
    case octagon
}
