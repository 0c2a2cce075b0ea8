/// A drawing style for an outline or an edge, named as in Graphviz.
public enum DotStyle: String, Hashable, Sendable, CaseIterable {
    case solid
    case dashed
    case dotted
    case bold
    case filled
    case rounded
}
