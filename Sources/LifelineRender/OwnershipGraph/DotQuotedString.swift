/// A string written as a DOT quoted string that Graphviz reads back as the same text.
///
/// Graphviz reads more than quotes in a label: it interprets the escape sequences `\n`, `\l`,
/// `\r`, `\N`, `\G`, `\E`, `\T`, `\H` and `\L`, turns `&name;` and `&#N;` into characters,
/// and passes control characters through into SVG, where they make the XML ill-formed. So:
/// - `"` becomes `\"` and `\` becomes `\\`, which Graphviz shows as one backslash;
/// - `&` becomes `&amp;`, so text that looks like an entity stays as written;
/// - a line break (`\n`, `\r\n` or `\r`) becomes the centred line break `\n`, and a tab a space;
/// - other control characters (C0, DEL, C1) and the noncharacters U+FFFE and U+FFFF, which
///   XML cannot carry, are dropped;
/// - text that would make the quoted string longer than ``byteLimit`` is cut there and ends
///   with `…`: Graphviz's scanner rejects the whole graph at a quoted string longer than
///   16,384 bytes ("longer than 16384?").
struct DotQuotedString: CustomStringConvertible {
    /// The most bytes of escaped text written between the quotes, below the 16,384 bytes
    /// Graphviz's scanner takes.
    static let byteLimit = 16_000


    /// The unescaped text.
    let text: String

    init(_ text: String) {
        self.text = text
    }

    var description: String {
        var quoted = "\""
        quoted.reserveCapacity(text.utf8.count + 2)
        var previousWasCarriageReturn = false
        for scalar in text.unicodeScalars {
            defer { previousWasCarriageReturn = scalar == "\r" }
            // The longest escape written for one scalar is 6 bytes (`&amp;` is 5, `\n` 2, a
            // scalar 4), and the ellipsis 3.
            if quoted.utf8.count > Self.byteLimit - 6 - 3 {
                quoted += "…"
                break
            }
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "&": quoted += "&amp;"
            case "\r": quoted += "\\n"
            case "\n": if !previousWasCarriageReturn { quoted += "\\n" }
            case "\t": quoted += " "
            case "\u{0}"..."\u{1F}", "\u{7F}"..."\u{9F}", "\u{FFFE}", "\u{FFFF}": continue
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        quoted += "\""
        return quoted
    }
}
