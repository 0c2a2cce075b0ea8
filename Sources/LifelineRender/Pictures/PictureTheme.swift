/// The colours a picture is drawn in: `--theme auto|light|dark`.
public enum PictureTheme: String, CaseIterable, Sendable {
    /// Light colours with dark ones under `prefers-color-scheme: dark`, on a transparent
    /// background (a PNG is drawn light).
    case auto
    /// The light palette on an opaque white background, baked in.
    case light
    /// The dark palette on an opaque near-black background, baked in.
    case dark

    /// The appearance of the sequence and marble SVGs.
    public var svgAppearance: SVGAppearance {
        switch self {
        case .auto: return .adaptive
        case .light: return .light
        case .dark: return .dark
        }
    }
}
