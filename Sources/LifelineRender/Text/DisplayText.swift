/// Text from a trace made fit to show: control characters made visible, characters no
/// diagram format can carry replaced, and long text shortened with an ellipsis.
///
/// Labels, type names and value descriptions come from the traced program, so they can hold
/// anything: newlines, NUL, bidirectional overrides, 20,000 characters. Every renderer passes
/// them through here first, then escapes the result for its own format.
struct DisplayText {
    /// The cleaned text, full length.
    let full: String
    /// The cleaned text, at most the requested number of characters.
    let short: String
    /// Whether ``short`` lost characters.
    var isShortened: Bool { short != full }

    /// Cleans `text` and shortens it to at most `limit` characters (grapheme clusters),
    /// the last of which is then an ellipsis.
    init(_ text: String, limit: Int) {
        let cleaned = Self.clean(text)
        full = cleaned
        if cleaned.count > limit {
            short = String(cleaned.prefix(max(limit - 1, 0))) + "…"
        } else {
            short = cleaned
        }
    }

    /// Replaces what cannot be shown as itself.
    ///
    /// - C0 controls and DEL become their Unicode control pictures (`\n` shows as `␊`), so
    ///   the text keeps one line and still says what was there.
    /// - C1 controls, noncharacters and bidirectional overrides (which would reorder the text
    ///   around them) become U+FFFD.
    static func clean(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F:
                scalars.append(Unicode.Scalar(0x2400 + scalar.value)!)
            case 0x7F:
                scalars.append("\u{2421}")
            case 0x80...0x9F, 0xFFFE, 0xFFFF, 0x202A...0x202E, 0x2066...0x2069:
                scalars.append("\u{FFFD}")
            default:
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// An estimate of how wide `text` is drawn, in pixels, at `fontSize`: wide enough for
    /// capitals and for emoji, which count double.
    static func estimatedWidth(of text: String, fontSize: Int) -> Int {
        var units = 0
        for character in text {
            let value = character.unicodeScalars.first!.value
            units += value >= 0x1100 && (character.unicodeScalars.count > 1 || value >= 0x2E80) ? 2 : 1
        }
        return (units * fontSize * 62 + 99) / 100
    }
}
