/// Escaping for Mermaid `sequenceDiagram` text: participant aliases, messages and notes.
///
/// Mermaid reads `#` as the start of a comment, `;` as the end of a statement and `%%` as a
/// comment, takes `<br>` and other tags as markup, and finds arrows (`->>`, `-->`) in text.
/// It decodes entity codes such as `#quot;` and `#35;` before parsing, so every character
/// that could be read as syntax is written as one.
enum MermaidText {
    /// `text`, cleaned and shortened to `limit` characters, with every syntax character
    /// written as a Mermaid entity code.
    static func escape(_ text: String, limit: Int) -> String {
        escapeClean(DisplayText(text, limit: limit).short)
    }

    /// Escapes text that is already clean (one line, no control characters).
    static func escapeClean(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\"": result += "#quot;"
            case "#": result += "#35;"
            case ";": result += "#59;"
            case "<": result += "#lt;"
            case ">": result += "#gt;"
            case "&": result += "#amp;"
            case "%": result += "#37;"
            case "{": result += "#123;"
            case "}": result += "#125;"
            case "\\": result += "#92;"
            default: result.append(character)
            }
        }
        return result
    }
}
