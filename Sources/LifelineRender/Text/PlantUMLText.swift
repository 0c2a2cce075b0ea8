/// Escaping for PlantUML sequence diagram text: quoted participant names, messages and notes.
///
/// PlantUML reads `\n` as a line break, Creole markup (`**bold**`, `//italic//`, `--strike--`,
/// `""mono""`) and HTML-like tags (`<b>`, `<img:…>`) in any text, and ends a quoted name at
/// `"`. Every ASCII character other than letters, digits, space and plain punctuation is
/// written as a numeric character reference (`&#34;`), which PlantUML decodes when it
/// draws. The backslash is written `<U+005C>`: PlantUML 1.2020 crashes while drawing `&#92;`.
enum PlantUMLText {
    /// `text`, cleaned and shortened to `limit` characters, with every markup character
    /// escaped.
    static func escape(_ text: String, limit: Int) -> String {
        escapeClean(DisplayText(text, limit: limit).short)
    }

    /// Escapes one line of a multi-line note. A line that reads `end note` (or starts with
    /// `end`) would close the note early, so its first letter is written as a reference.
    static func escapeNoteLine(_ line: String) -> String {
        let escaped = escapeClean(line)
        guard line.lowercased().drop(while: { $0 == " " }).hasPrefix("end"), let index = escaped.firstIndex(where: \.isLetter) else {
            return escaped
        }
        return escaped[..<index] + "&#\(escaped[index].unicodeScalars.first!.value);" + escaped[escaped.index(after: index)...]
    }

    /// Escapes text that is already clean (one line, no control characters).
    static func escapeClean(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", " ", ".", ",", "(", ")", ":", "?", "!", "+":
                result.unicodeScalars.append(scalar)
            case "\\":
                result += "<U+005C>"
            case _ where scalar.isASCII:
                result += "&#\(scalar.value);"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
