/// Lays out an ownership graph's DOT source as a picture.
///
/// LifelineRender writes the DOT; laying it out needs Graphviz, a C library, so the layout
/// lives in LifelineGraphviz (`GraphvizLayout`) and is handed in where a picture format needs
/// it.
public protocol OwnershipGraphLayout: Sendable {
    /// The graph laid out as an SVG document in `theme`'s colours.
    func svg(fromDOT dot: String, theme: PictureTheme) throws -> String
    /// The graph laid out as PNG bytes in `theme`'s colours.
    func png(fromDOT dot: String, theme: PictureTheme) throws -> [UInt8]
}
