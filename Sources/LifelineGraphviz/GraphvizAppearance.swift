import LifelineRender

/// Which colours and background a rendered graph carries.
public enum GraphvizAppearance: String, Hashable, Sendable, CaseIterable {
    /// SVG: a transparent background, and a style sheet that switches Graphviz's default black
    /// and white and every ``LifelineRender/DotColor`` to its dark value under
    /// `@media (prefers-color-scheme: dark)`. Follows the viewer's setting, in viewers that
    /// honour media queries inside an SVG. PNG, which cannot adapt, is drawn ``light``.
    case adaptive
    /// The light palette on an opaque white background, baked in: every viewer shows the same.
    case light
    /// The dark palette on an opaque near-black background, baked in: every
    /// ``LifelineRender/DotColor`` is drawn with its dark value, and Graphviz's default black
    /// lines and text with ``LifelineRender/DotColor/ink``'s.
    case dark
    /// The colours and background exactly as the DOT text sets them.
    case asAuthored

    /// The colour substitutions that bake this appearance into a graph, or nil when the graph is
    /// drawn as authored. `black` and `white` stand for Graphviz's defaults.
    var substitutions: [(from: String, to: String)]? {
        switch self {
        case .adaptive, .asAuthored:
            return nil
        case .light:
            return [("black", DotColor.ink.lightHex), ("white", DotColor.paper.lightHex)]
        case .dark:
            return [("black", DotColor.ink.darkHex), ("white", DotColor.paper.darkHex)]
                + DotColor.allCases.map { ($0.lightHex, $0.darkHex) }
        }
    }
}
