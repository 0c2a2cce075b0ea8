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
