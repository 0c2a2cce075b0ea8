import LifelineRender

/// The `<style>` element that makes a Graphviz SVG read in dark mode.
///
/// Graphviz writes colours as presentation attributes (`fill="black"`, `stroke="#0969da"`),
/// and any CSS rule overrides a presentation attribute, so attribute selectors can recolour
/// the picture without touching the drawing. Text without a `fill` is black by default.
enum AdaptiveStyleSheet {
    /// The style element, one rule per line, in a fixed order.
    static let element: String = {
        var rules = [
            #"[stroke="black"] { stroke: \#(DotColor.ink.darkHex); }"#,
            #"[fill="black"] { fill: \#(DotColor.ink.darkHex); }"#,
            #"[stroke="white"] { stroke: \#(DotColor.paper.darkHex); }"#,
            #"[fill="white"] { fill: \#(DotColor.paper.darkHex); }"#,
            #"text:not([fill]) { fill: \#(DotColor.ink.darkHex); }"#,
        ]
        for color in DotColor.allCases {
            rules.append(#"[stroke="\#(color.lightHex)"] { stroke: \#(color.darkHex); }"#)
            rules.append(#"[fill="\#(color.lightHex)"] { fill: \#(color.darkHex); }"#)
        }
        return "<style>\n@media (prefers-color-scheme: dark) {\n"
            + rules.map { "  " + $0 }.joined(separator: "\n")
            + "\n}\n</style>"
    }()
}
