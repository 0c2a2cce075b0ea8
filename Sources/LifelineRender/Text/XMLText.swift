/// Escaping for XML character data and attribute values.
enum XMLText {
    /// `text` with `&`, `<`, `>`, `"` and `'` written as entities. Pass text through
    /// ``DisplayText`` first: XML 1.0 cannot carry control characters at all.
    static func escape(_ text: String) -> String {
        var text = text
        // Read from the bytes: most text has nothing to escape, and text in ASCII, whose
        // characters are its bytes, is escaped byte by byte. A tooltip that lists a hundred
        // thousand resubscriptions runs to megabytes.
        let (hasEntity, isASCII) = text.withUTF8 { utf8 in
            (utf8.contains { entity(for: $0) != nil }, utf8.allSatisfy { $0 < 0x80 })
        }
        guard hasEntity else { return text }
        if isASCII {
            return text.withUTF8 { utf8 in
                var bytes: [UInt8] = []
                bytes.reserveCapacity(utf8.count + utf8.count / 8)
                for byte in utf8 {
                    if let entity = entity(for: byte) { bytes.append(contentsOf: entity.utf8) } else { bytes.append(byte) }
                }
                return String(decoding: bytes, as: UTF8.self)
            }
        }
        // Beyond ASCII a character can join a mark to `&` or `<`: one character, not escaped.
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }

    /// The entity that writes `byte` when it is one of the five that need one.
    private static func entity(for byte: UInt8) -> String? {
        switch byte {
        case UInt8(ascii: "&"): return "&amp;"
        case UInt8(ascii: "<"): return "&lt;"
        case UInt8(ascii: ">"): return "&gt;"
        case UInt8(ascii: "\""): return "&quot;"
        case UInt8(ascii: "'"): return "&apos;"
        default: return nil
        }
    }
}
