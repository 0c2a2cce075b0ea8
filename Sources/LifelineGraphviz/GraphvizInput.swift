/// Prepares DOT text for Graphviz 2.42, whose SVG output breaks on two kinds of input.
///
/// - A numeric character reference above U+FFFF (`&#128512;`, `&#x1F600;`) comes out as
///   invalid UTF-8, while the character itself (😀) comes out right, so such references are
///   replaced by their characters. Graphviz would decode them anyway.
/// - Control characters other than tab, line feed and carriage return, and the noncharacters
///   U+FFFE and U+FFFF, pass straight into the SVG, where XML forbids them, so they are
///   dropped. No DOT text can use them meaningfully.
///
/// Text that ``LifelineRender/DotGraph`` writes never needs either change.
enum GraphvizInput {
    /// The DOT text with astral character references expanded and unencodable characters dropped.
    static func prepared(_ dot: String) -> String {
        var text = dot
        if text.unicodeScalars.contains(where: isForbiddenInXML) {
            text = String(String.UnicodeScalarView(text.unicodeScalars.filter { !isForbiddenInXML($0) }))
        }
        if text.contains("&#") {
            text = text.replacing(/&#(?:([0-9]{1,8})|[xX]([0-9a-fA-F]{1,8}));/) { match in
                let (whole, decimal, hexadecimal) = match.output
                let value = decimal.flatMap { UInt32($0) } ?? hexadecimal.flatMap { UInt32($0, radix: 16) }
                guard let value, value > 0xFFFF, let scalar = Unicode.Scalar(value) else {
                    return String(whole)
                }
                return String(Character(scalar))
            }
        }
        return text
    }

    /// Whether XML 1.0 cannot carry the scalar at all.
    private static func isForbiddenInXML(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: false
        case 0x00...0x1F, 0xFFFE, 0xFFFF: true
        default: false
        }
    }
}
