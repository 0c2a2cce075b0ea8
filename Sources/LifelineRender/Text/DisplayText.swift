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

    /// Cleans a type name and shortens it to at most `limit` characters by dropping
    /// leading namespace components, so the most specific part stays:
    /// `…DecodedDataTaskSubscription` rather than `DecodedDataTaskPublisher.Deco…`. A last
    /// component that alone is too long is shortened at its end, as ``init(_:limit:)`` does.
    static func typeName(_ name: String, limit: Int) -> DisplayText {
        let head = DisplayText(name, limit: limit)
        guard head.isShortened else { return head }
        var components = head.full.split(separator: ".", omittingEmptySubsequences: false)
        while components.count > 1 {
            components.removeFirst()
            let tail = components.joined(separator: ".")
            if tail.count + 1 <= limit { return DisplayText(full: head.full, short: "…" + tail) }
        }
        return head
    }

    private init(full: String, short: String) {
        self.full = full
        self.short = short
    }

    /// Replaces what cannot be shown as itself with the Swift escape that writes it, in
    /// plain ASCII that every font can draw: a newline shows as `\n`, a tab as `\t`, NUL as
    /// `\0`, other control characters as `\u{7}`. The text stays on one line and still says
    /// what was there. Noncharacters (which XML cannot carry) and bidirectional overrides
    /// (which would reorder the text around them) are written the same way.
    static func clean(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\0": result += "\\0"
            case _ where needsEscape(scalar): result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0xFFFE, 0xFFFF, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
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
