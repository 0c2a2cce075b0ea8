/// A string written as a DOT quoted string that Graphviz reads back as the same text.
///
/// Graphviz reads more than quotes in a label: it interprets the escape sequences `\n`, `\l`,
/// `\r`, `\N`, `\G`, `\E`, `\T`, `\H` and `\L`, turns `&name;` and `&#N;` into characters,
/// and passes control characters through into SVG, where they make the XML ill-formed. So:
/// - `"` becomes `\"` and `\` becomes `\\`, which Graphviz shows as one backslash;
/// - `&` becomes `&amp;`, so text that looks like an entity stays as written;
/// - a line break (`\n`, `\r\n` or `\r`) becomes the centred line break `\n`, and a tab a space;
/// - other control characters (C0, DEL, C1) and the noncharacters U+FFFE and U+FFFF, which
///   XML cannot carry, are dropped.
struct DotQuotedString: CustomStringConvertible {
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
