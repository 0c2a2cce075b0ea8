/// Which colours an SVG carries.
public enum SVGAppearance: String, Hashable, Sendable, CaseIterable {
    /// Light colours, and dark ones under `@media (prefers-color-scheme: dark)`, on a
    /// transparent background: follows the viewer's setting, in viewers that honour media
    /// queries inside an SVG (browsers opening the file directly do; an `<img>` follows the
    /// browser's setting, not the page's).
    case adaptive
    /// Light colours only, on an opaque white background: reads the same in every viewer.
    /// Pair it with a ``dark`` copy (`name.svg` and `name~dark.svg` for DocC, a `<picture>`
    /// element for GitHub) to follow a page's light and dark modes.
    case light
    /// Dark colours only, on an opaque near-black background: reads the same in every viewer.
    case dark
}
