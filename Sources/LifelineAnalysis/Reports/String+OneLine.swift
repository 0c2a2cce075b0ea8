extension String {
    /// The text with each control character shown as `�`: a newline in a program's label or
    /// value would otherwise break a report's one-line entry in two.
    var onOneLine: String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0.properties.generalCategory == .control ? "�" : $0 }))
    }
}
