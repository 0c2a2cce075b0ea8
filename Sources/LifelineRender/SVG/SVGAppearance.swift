/// Which colours an SVG carries.
public enum SVGAppearance: String, Hashable, Sendable, CaseIterable {
    /// Light colours, and dark ones under `@media (prefers-color-scheme: dark)`: follows the
    /// viewer's setting. The right choice for docs and READMEs.
    case adaptive
    /// Light colours only, for print and for slides with a light background.
    case light
    /// Dark colours only, for slides with a dark background.
    case dark
}
