/// How a rendered SVG handles light and dark mode.
public enum GraphvizSVGAppearance: Hashable, Sendable {
    /// A transparent background, and a style sheet that switches Graphviz's default black and
    /// white and every ``LifelineDOT/DotColor`` to its dark value under
    /// `@media (prefers-color-scheme: dark)`. For documentation pages.
    case adaptive
    /// The colours and background exactly as the DOT text sets them.
    case asAuthored
}
