import Testing
@testable import LifelineLog

/// Program text shown by any output: one line, nothing a terminal acts on, one length cap.
@Suite struct TraceTextTests {
    @Test func everyCharacterThatBreaksALineOrDrivesATerminalIsWrittenAsItsEscape() {
        let hostile = "a\nb\rc\td\0e\u{1B}[31mf\u{7F}g\u{85}h\u{9B}i\u{2028}j\u{2029}k\u{202E}l\u{2066}m\u{200F}n\u{FFFE}o"
        #expect(TraceText.escaped(hostile)
            == #"a\nb\rc\td\0e\u{1B}[31mf\u{7F}g\u{85}h\u{9B}i\u{2028}j\u{2029}k\u{202E}l\u{2066}m\u{200F}n\u{FFFE}o"#)
    }

    @Test func ordinaryTextIsLeftAlone() {
        let text = #"Sink "ui" #2 → 中文 😀👩‍👩‍👧 é \n already escaped"#
        #expect(TraceText.printable(text) == text)
    }

    @Test func longTextIsCutAtTheSharedLimitWithAnEllipsis() {
        let long = String(repeating: "x", count: 100_000)
        let shown = TraceText.printable(long)
        #expect(shown.count == TraceText.limit)
        #expect(shown == String(repeating: "x", count: TraceText.limit - 1) + "…")
        let exact = String(repeating: "y", count: TraceText.limit)
        #expect(TraceText.printable(exact) == exact)
    }

    @Test func oneCharacterMadeOfThousandsOfScalarsIsCutToo() {
        let zalgo = "a" + String(repeating: "\u{301}", count: 50_000) + "b"
        let shown = TraceText.shortened(zalgo, limit: 10)
        #expect(shown.unicodeScalars.count <= 40)
        #expect(shown.hasSuffix("…"))
    }
}
