/// Text the traced program chose (labels, type names, root and snapshot names, values, thread
/// and queue names), made safe to show: on one line, with nothing a terminal or a viewer acts
/// on, and no longer than ``limit``.
///
/// The program can put anything in a label: a newline that forges a line of a report, an
/// escape sequence a terminal runs, a right-to-left override that reorders what follows, or
/// 100 kB. Every output that shows such text passes it through here (the text reports and
/// `lifeline why` directly, the diagrams through their own format's escaping after this), so
/// all of them write a hostile character the same way: as the Swift escape that spells it.
///
/// ```swift
/// TraceText.printable("a\nb\u{1B}[2J")   // a\nb\u{1B}[2J (the backslashes are literal)
/// ```
package enum TraceText {
    /// The most characters (grapheme clusters) of one piece of program text that any output
    /// shows; longer text keeps its start and ends with an ellipsis. Diagrams cut shorter
    /// where their layout needs it.
    package static let limit = 2_000

    /// `text` escaped (``escaped(_:)``) and shortened to `limit` characters
    /// (``shortened(_:limit:)``).
    package static func printable(_ text: String, limit: Int = limit) -> String {
        shortened(escaped(text), limit: limit)
    }

    /// `text` shortened to at most `limit` characters (grapheme clusters) and to at most
    /// `4 * limit` Unicode scalars, the last character being `…` when anything was cut. The
    /// scalar bound keeps text made of one letter and ten thousand combining marks short too.
    package static func shortened(_ text: String, limit: Int = limit) -> String {
        // No more bytes than the limit: no more scalars or characters either.
        if text.utf8.count <= limit { return text }
        let scalarLimit = limit > Int.max / 4 ? Int.max : 4 * limit
        let scalarCount = text.unicodeScalars.count
        guard scalarCount > limit else { return text }
        if scalarCount <= scalarLimit && text.count <= limit { return text }
        var kept = ""
        var characters = 0, scalars = 0
        for character in text {
            let size = character.unicodeScalars.count
            guard characters + 1 < limit, scalars + size < scalarLimit else { break }
            kept.append(character)
            characters += 1
            scalars += size
        }
        return kept + "…"
    }

    /// Replaces what cannot be shown as itself with the Swift escape that writes it, in plain
    /// ASCII that every font can draw: a newline shows as `\n`, a carriage return as `\r`, a
    /// tab as `\t`, NUL as `\0`, any other such character as `\u{1B}`. The text stays on one
    /// line and still says what was there. Escaped are the control characters (C0, DEL, C1,
    /// among them the escape that starts a terminal sequence and U+0085 NEXT LINE), the line
    /// and paragraph separators U+2028 and U+2029, the bidirectional controls (U+061C, U+200E,
    /// U+200F, U+202A to U+202E, U+2066 to U+2069), and the noncharacters U+FFFE and U+FFFF,
    /// which XML cannot carry.
    package static func escaped(_ text: String) -> String {
        // Printable ASCII, nearly all text, needs no escape: told from its bytes alone.
        if isPrintableASCII(text) { return text }
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

    /// Whether `text` is printable ASCII only, read from its contiguous bytes (a `String`'s
    /// `utf8` view walked byte by byte costs several times more, for every lane and name).
    package static func isPrintableASCII(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }
    }

    /// Whether ``escaped(_:)`` writes `scalar` as an escape.
    package static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069,
             0xFFFE, 0xFFFF:
            return true
        default:
            return false
        }
    }
}
