import LifelineRender

/// Lays out ownership graphs with Graphviz, in-process: what `PictureFormat.render` uses for
/// `graph-svg` and `graph-png`.
public struct GraphvizLayout: OwnershipGraphLayout {
    public init() {}

    public func svg(fromDOT dot: String, theme: PictureTheme) throws -> String {
        try GraphvizRenderer(appearance: GraphvizAppearance(theme)).svg(fromDOT: dot)
    }

    public func png(fromDOT dot: String, theme: PictureTheme) throws -> [UInt8] {
        try GraphvizRenderer(appearance: GraphvizAppearance(theme)).png(fromDOT: dot)
    }
}

extension GraphvizAppearance {
    /// The appearance that draws a graph in `theme`'s colours.
    public init(_ theme: PictureTheme) {
        switch theme {
        case .auto: self = .adaptive
        case .light: self = .light
        case .dark: self = .dark
        }
    }
}
