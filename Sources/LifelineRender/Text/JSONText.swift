/// Escaping for JSON strings, written by hand so that output bytes never depend on a
/// Foundation encoder's formatting choices.
enum JSONText {
    /// `text` as a quoted JSON string literal.
    static func quoted(_ text: String) -> String {
        // Most text needs no escape: then it is copied whole, not scalar by scalar.
        if !needsEscape(text) { return "\"" + text + "\"" }
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x2028...0x2029).contains(scalar.value):
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// Whether `text` has a character ``quoted(_:)`` escapes: a quote, a backslash, a control
    /// character, DEL, or U+2028 or U+2029 (UTF-8 `E2 80 A8` and `E2 80 A9`).
    private static func needsEscape(_ text: String) -> Bool {
        var text = text
        return text.withUTF8(needsEscape)
    }

    /// Whether the UTF-8 text `utf8` has a character ``quoted(_:)`` escapes.
    static func needsEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        // Printable ASCII, nearly all text, is told by a few comparisons a byte; the first byte
        // beyond it goes on through the whole check.
        var start = 0
        while start < utf8.count, utf8[start] >= 0x20, utf8[start] < 0x7F {
            if utf8[start] == UInt8(ascii: "\"") || utf8[start] == UInt8(ascii: "\\") { return true }
            start += 1
        }
        var afterE2 = 0
        for byte in utf8[start...] {
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F { return true }
            switch (afterE2, byte) {
            case (_, 0xE2): afterE2 = 1
            case (1, 0x80): afterE2 = 2
            case (2, 0xA8), (2, 0xA9): return true
            default: afterE2 = 0
            }
        }
        return false
    }
}
