/// A node outline, named as in Graphviz.
public enum DotShape: String, Hashable, Sendable, CaseIterable {
    case box
    case ellipse
    case hexagon
    case note
    case component
    case cylinder
    case octagon
}
