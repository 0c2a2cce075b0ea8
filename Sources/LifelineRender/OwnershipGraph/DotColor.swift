/// A colour from Lifeline's palette, with a light-mode and a dark-mode value.
///
/// Graphs are written with the light values. Because every colour comes from this palette,
/// a rendered SVG can switch each one to its dark value under
/// `@media (prefers-color-scheme: dark)`: the light values are all distinct, so each one
/// names its colour. Tints are for node fills, the plain colours for outlines, edges and text.
public enum DotColor: String, Hashable, Sendable, CaseIterable {
    /// Text and lines: near-black in light mode, near-white in dark mode.
    case ink
    /// The page: white in light mode, near-black in dark mode.
    case paper
    /// Publishers' outlines.
    case blue
    /// Publishers' fill.
    case blueTint
    /// Subscriptions' outlines.
    case green
    /// Subscriptions' fill.
    case greenTint
    /// Subscribers' outlines.
    case purple
    /// Subscribers' fill.
    case purpleTint
    /// Cancellables' outlines.
    case orange
    /// Cancellables' fill.
    case orangeTint
    /// User objects' outlines.
    case yellow
    /// User objects' fill.
    case yellowTint
    /// Deallocated objects' outlines and text.
    case grey
    /// Deallocated objects' fill.
    case greyTint
    /// The warning colour, for retain cycles.
    case red

    /// The colour in light mode, as `#rrggbb` in lower case (as Graphviz writes it to SVG).
    public var lightHex: String {
        switch self {
        case .ink: "#1f2328"
        case .paper: "#ffffff"
        case .blue: "#0969da"
        case .blueTint: "#ddf4ff"
        case .green: "#1a7f37"
        case .greenTint: "#dafbe1"
        case .purple: "#8250df"
        case .purpleTint: "#fbefff"
        case .orange: "#bc4c00"
        case .orangeTint: "#fff1e5"
        case .yellow: "#9a6700"
        case .yellowTint: "#fff8c5"
        case .grey: "#6e7781"
        case .greyTint: "#f6f8fa"
        case .red: "#cf222e"
        }
    }

    /// The colour in dark mode, as `#rrggbb`.
    public var darkHex: String {
        switch self {
        case .ink: "#e6edf3"
        case .paper: "#0d1117"
        case .blue: "#4493f8"
        case .blueTint: "#0c2d6b"
        case .green: "#3fb950"
        case .greenTint: "#0f2d1a"
        case .purple: "#ab7df8"
        case .purpleTint: "#2a1a4a"
        case .orange: "#f0883e"
        case .orangeTint: "#3a2211"
        case .yellow: "#d29922"
        case .yellowTint: "#3a2f0b"
        case .grey: "#8b949e"
        case .greyTint: "#21262d"
        case .red: "#f85149"
        }
    }
}
