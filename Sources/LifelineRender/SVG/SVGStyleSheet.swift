/// The `<style>` element every Lifeline SVG carries: system fonts only, and each colour in a
/// light and a dark variant.
///
/// Class names are short because a large diagram repeats them thousands of times:
/// `tx` text, `tb` bold text, `tm` muted small text, `tw` text on a coloured badge, `ln`
/// lifeline, `bx` participant box, `nt` note, `fd` folded run, `mk` mark, `x` deallocation,
/// `tl` timeline, `mb` marble, `mv` a marble's value, `hl` a halo in the page colour behind
/// text drawn across lines, `bg` the page itself (drawn only when one palette is baked in); `s0`…`s5` strokes, `f0`…`f5` fills and `a0`…`a5` activations
/// in a thread's colour; `vi`, `vw`, `ve` fills and `ui`, `uw`, `ue` strokes in a
/// severity's colour (info, warning, error).
enum SVGStyleSheet {
    /// The number of distinct thread colours; further threads reuse them in order.
    static let contextColourCount = 6

    private struct Rule {
        let selector: String
        let light: String
        let dark: String
    }

    /// (light, dark) for each thread colour: blue, orange, green, purple, teal, pink.
    private static let contextColours: [(String, String)] = [
        ("#0969da", "#58a6ff"), ("#bc4c00", "#ffa657"), ("#1a7f37", "#3fb950"),
        ("#8250df", "#d2a8ff"), ("#0e7c86", "#39c5cf"), ("#bf3989", "#ff80c8"),
    ]
    /// (light, dark) opaque tints of the thread colours, for activation bars: opaque so the
    /// dashed lifeline does not show through.
    private static let contextTints: [(String, String)] = [
        ("#cee1f8", "#243e5d"), ("#f2dbcc", "#563e2a"), ("#d1e5d7", "#1c4328"),
        ("#e6dcf9", "#483e5d"), ("#cfe5e7", "#1a474e"), ("#f2d7e7", "#56324c"),
    ]
    private static let severityColours: [(String, (String, String))] = [
        ("i", ("#0969da", "#58a6ff")), ("w", ("#9a6700", "#d29922")), ("e", ("#cf222e", "#ff7b72")),
    ]

    private static var rules: [Rule] {
        var rules = [
            Rule(selector: "tx", light: "fill:#1f2328", dark: "fill:#e6edf3"),
            Rule(selector: "tb", light: "fill:#1f2328", dark: "fill:#e6edf3"),
            Rule(selector: "tm", light: "fill:#59636e", dark: "fill:#9198a1"),
            Rule(selector: "tw", light: "fill:#ffffff", dark: "fill:#0d1117"),
            Rule(selector: "ln", light: "stroke:#8c959f", dark: "stroke:#6e7681"),
            Rule(selector: "bx", light: "fill:#f6f8fa;stroke:#59636e", dark: "fill:#161b22;stroke:#9198a1"),
            Rule(selector: "nt", light: "fill:#fff8c5;stroke:#d4a72c", dark: "fill:#272115;stroke:#9e6a03"),
            Rule(selector: "fd", light: "fill:#eaeef2;stroke:#8c959f", dark: "fill:#21262d;stroke:#6e7681"),
            Rule(selector: "mk", light: "stroke:#8c959f", dark: "stroke:#6e7681"),
            Rule(selector: "x", light: "stroke:#1f2328", dark: "stroke:#e6edf3"),
            Rule(selector: "tl", light: "stroke:#59636e", dark: "stroke:#9198a1"),
            Rule(selector: "mb", light: "fill:#ffffff", dark: "fill:#0d1117"),
            Rule(selector: "hl", light: "stroke:#ffffff", dark: "stroke:#0d1117"),
            Rule(selector: "bg", light: "fill:#ffffff", dark: "fill:#0d1117"),
        ]
        for (index, ((light, dark), (lightTint, darkTint))) in zip(contextColours, contextTints).enumerated() {
            rules.append(Rule(selector: "s\(index)", light: "stroke:\(light)", dark: "stroke:\(dark)"))
            rules.append(Rule(selector: "f\(index)", light: "fill:\(light)", dark: "fill:\(dark)"))
            rules.append(Rule(selector: "a\(index)", light: "fill:\(lightTint);stroke:\(light)", dark: "fill:\(darkTint);stroke:\(dark)"))
        }
        for (name, (light, dark)) in severityColours {
            rules.append(Rule(selector: "v\(name)", light: "fill:\(light)", dark: "fill:\(dark)"))
            rules.append(Rule(selector: "u\(name)", light: "stroke:\(light)", dark: "stroke:\(dark)"))
        }
        return rules
    }

    /// The `<style>` element for an SVG whose root has class `root`.
    static func element(root: String, appearance: SVGAppearance) -> String {
        let scope = ".\(root)"
        var css = """
            \(scope){font-family:-apple-system,BlinkMacSystemFont,"Segoe UI","Helvetica Neue",Helvetica,Arial,"DejaVu Sans",sans-serif;font-size:12px}
            \(scope) .tb{font-weight:600}
            \(scope) .tm,\(scope) .tw,\(scope) .mv{font-size:11px}
            \(scope) .ln,\(scope) .mk{stroke-dasharray:4 3}
            \(scope) .fd{stroke-dasharray:3 3}
            \(scope) .x{stroke-width:2}
            \(scope) .tl{stroke-width:1.5;fill:none}
            \(scope) .hl{paint-order:stroke;stroke-width:4px;stroke-linejoin:round}

            """
        // Only a document with one palette baked in paints its background.
        let drawn = appearance == .adaptive ? rules.filter { $0.selector != "bg" } : rules
        func declarations(_ pick: (Rule) -> String) -> String {
            drawn.map { "\(scope) .\($0.selector){\(pick($0))}" }.joined(separator: "\n") + "\n"
        }
        switch appearance {
        case .adaptive:
            css += declarations(\.light)
            css += "@media (prefers-color-scheme: dark){\n" + declarations(\.dark) + "}\n"
        case .light:
            css += declarations(\.light)
        case .dark:
            css += declarations(\.dark)
        }
        return "<style>\n" + css + "</style>"
    }
}
