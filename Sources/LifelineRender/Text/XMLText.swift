/// Escaping for XML character data and attribute values.
enum XMLText {
    /// `text` with `&`, `<`, `>`, `"` and `'` written as entities. Pass text through
    /// ``DisplayText`` first: XML 1.0 cannot carry control characters at all.
    static func escape(_ text: String) -> String {
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
}
