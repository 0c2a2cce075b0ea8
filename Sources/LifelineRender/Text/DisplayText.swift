import LifelineLog

/// Text from a trace made fit to show: control characters made visible, characters no
/// diagram format can carry replaced, and long text shortened with an ellipsis.
///
/// Labels, type names and value descriptions come from the traced program, so they can hold
/// anything: newlines, NUL, bidirectional overrides, 120,000 characters. Every renderer passes
/// them through here first, then escapes the result for its own format.
///
/// How much of such text a picture shows: at most ``nameLimit`` characters of visible text
/// for one name or label (layouts cut shorter where they need to), and at most
/// ``TraceText/limit`` (2,000, what the text reports show) wherever the format has room for
/// the full text: an SVG `<title>` tooltip, a note's wrapped lines. Longer text ends with
/// `…`. Only the part that can be shown is read, so the cost does not grow with the text.
struct DisplayText {
    /// The most characters of one name or label that a picture's visible text shows: an
    /// ownership graph's node title, a Perfetto slice or thread name.
    static let nameLimit = 120

    /// The cleaned text, at most ``TraceText/limit`` characters.
    let full: String
    /// The cleaned text, at most the requested number of characters.
    let short: String
    /// Whether ``short`` lost characters.
    var isShortened: Bool { short != full }

    /// Cleans `text` and shortens it to at most `limit` characters (grapheme clusters),
    /// the last of which is then an ellipsis.
    init(_ text: String, limit: Int) {
        let cleaned = Self.clean(text)
        full = cleaned
        short = TraceText.shortened(cleaned, limit: limit)
    }

    /// Cleans `text`, a shorter form of `full` (its tooltip), and shortens it to at most
    /// `limit` characters as ``init(_:limit:)`` does.
    init(_ text: String, limit: Int, standingFor full: String) {
        self.full = Self.clean(full)
        short = TraceText.shortened(Self.clean(text), limit: limit)
    }

    /// Cleans a type name and shortens it to at most `limit` characters by dropping
    /// leading namespace components, so the most specific part stays:
    /// `…DecodedDataTaskSubscription` rather than `DecodedDataTaskPublisher.Deco…`. A last
    /// component that alone is too long is shortened at its end, as ``init(_:limit:)`` does.
    static func typeName(_ name: String, limit: Int) -> DisplayText {
        let head = DisplayText(name, limit: limit)
        guard head.isShortened else { return head }
        var components = head.full.split(separator: ".", omittingEmptySubsequences: false)
        while components.count > 1 {
            components.removeFirst()
            let tail = components.joined(separator: ".")
            if tail.count + 1 <= limit { return DisplayText(full: head.full, short: "…" + tail) }
        }
        return head
    }

    private init(full: String, short: String) {
        self.full = full
        self.short = short
    }

    /// `text` on one line with every character a picture cannot show as itself written as
    /// its Swift escape (``TraceText/escaped(_:)``): control characters, line separators,
    /// bidirectional controls, noncharacters; shortened to at most ``TraceText/limit``
    /// characters as ``TraceText/printable(_:limit:)`` does.
    ///
    /// Only the first ``TraceText/limit`` + 1 characters are escaped: an escape is never
    /// shorter than what it writes, so the rest would be cut anyway. A label of 120,000
    /// bidirectional overrides (a million characters once escaped) costs what 2,001 do.
    static func clean(_ text: String) -> String {
        if text.utf8.count <= TraceText.limit { return TraceText.printable(text) }
        return TraceText.printable(String(text.prefix(TraceText.limit + 1)))
    }

    /// An estimate of how wide `text` is drawn, in pixels, at `fontSize`: wide enough for
    /// capitals and for emoji, which count double.
    static func estimatedWidth(of text: String, fontSize: Int) -> Int {
        var units = 0
        for character in text {
            let value = character.unicodeScalars.first!.value
            units += value >= 0x1100 && (character.unicodeScalars.count > 1 || value >= 0x2E80) ? 2 : 1
        }
        return (units * fontSize * characterWidthPercent + 99) / 100
    }

    /// How many characters of one column each fit `width` pixels at `fontSize`, as
    /// ``estimatedWidth(of:fontSize:)`` counts them.
    static func characters(fitting width: Int, fontSize: Int) -> Int {
        width * 100 / (fontSize * characterWidthPercent)
    }

    /// The width of a character of one column, in hundredths of the font size.
    private static let characterWidthPercent = 62
}
