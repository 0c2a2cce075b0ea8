/// Damages a log the ways a crash, an editor, a copy or a hostile program would: lines lost,
/// repeated, reordered, zeroed or cut; a call's begin turned into an end; numbers and strings
/// replaced by extreme ones; bytes flipped; lines spliced in from another log.
///
/// Every choice comes from the generator, so the same generator state gives the same input.
struct LogMutator {
    /// The logs mutations start from and splice lines from.
    let corpus: [[UInt8]]

    /// Strings a label, a type name or a value could hold.
    static let hostileStrings: [String] = [
        "", "\\n", "\\u0000", "\\u001b[2J\\u001b[31m", "a\\nforged line", "\\u2028\\u2029\\u0085", "\\u202eevil",
        "\\\"quoted\\\" <b>&amp;</b> #35; ;%% --> -->> @enduml", String(repeating: "L", count: 20_000),
        "a" + String(repeating: "\\u0301", count: 3_000), "😀👩‍👩‍👧", "\\ud800", "end note", "}", "\\\\",
    ]

    /// Numbers an id, a count, a sequence number or a time could be.
    static let extremeNumbers: [String] = [
        "0", "1", "2", "3", "-1", "-9223372036854775808", "9223372036854775807", "18446744073709551615",
        "18446744073709551616", "1e300", "0.5", "4294967296", "65536", "true", "null", "\"unlimited\"", "\"x\"",
    ]

    /// Mutation kinds, each as often as it should be picked: deleting, repeating and
    /// swapping lines, zeroing one, flipping a phase and replacing a string or a small number
    /// usually leave a log the reader accepts.
    static let weightedKinds = [0, 0, 0, 1, 1, 2, 2, 2, 3, 3, 4, 5, 5, 5, 5, 6, 6, 7, 7, 7, 8, 9, 10, 11]

    /// Input `index`: the first inputs are the corpus itself, later ones mutate a corpus log
    /// one to four times.
    func input(_ index: Int, using generator: inout SeededGenerator) -> [UInt8] {
        if index < corpus.count { return corpus[index] }
        var lines = split(corpus[Int.random(in: 0..<corpus.count, using: &generator)])
        // Half the inputs are logs whose recording never stopped, as a crash leaves them:
        // the reader then accepts the damage a crash leaves (zeroed and cut lines).
        if Bool.random(using: &generator), let end = lines.lastIndex(where: { $0.starts(with: Array("{\"kind\":\"end\"".utf8)) }) {
            lines.remove(at: end)
        }
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            mutate(&lines, using: &generator)
        }
        return Array(lines.joined(separator: [UInt8(ascii: "\n")]))
    }

    private func split(_ bytes: [UInt8]) -> [[UInt8]] {
        bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
    }

    private func mutate(_ lines: inout [[UInt8]], using generator: inout SeededGenerator) {
        guard !lines.isEmpty else {
            lines = [Array("{}".utf8)]
            return
        }
        let at = Int.random(in: 0..<lines.count, using: &generator)
        // Mutations that keep a log readable come up more often, so that most inputs get
        // past the reader to the outputs; the ones that break lines keep the reader honest.
        switch Self.weightedKinds.randomElement(using: &generator)! {
        case 0:
            lines.remove(at: at)
        case 1:
            lines.insert(lines[at], at: Int.random(in: 0...lines.count, using: &generator))
        case 2:
            lines.swapAt(at, Int.random(in: 0..<lines.count, using: &generator))
        case 3:
            // What an interrupted writer leaves: the line's bytes never written.
            lines[at] = [UInt8](repeating: 0, count: lines[at].count)
        case 4:
            lines[at] = Array(lines[at].prefix(Int.random(in: 0...lines[at].count, using: &generator)))
            lines.removeSubrange((at + 1)...)
        case 5:
            lines[at] = replacing(lines[at], Array("\"phase\":\"begin\"".utf8), Array("\"phase\":\"end\"".utf8))
                ?? replacing(lines[at], Array("\"phase\":\"end\"".utf8), Array("\"phase\":\"begin\"".utf8))
                ?? lines[at]
        case 6:
            replaceNumber(in: &lines[at], using: &generator)
        case 7:
            replaceString(in: &lines[at], using: &generator)
        case 8:
            guard !lines[at].isEmpty else { return }
            let byte = Int.random(in: 0..<lines[at].count, using: &generator)
            lines[at][byte] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
        case 9:
            let donor = split(corpus[Int.random(in: 0..<corpus.count, using: &generator)])
            lines.insert(donor[Int.random(in: 0..<donor.count, using: &generator)], at: at)
        case 10:
            lines.append([UInt8](repeating: 0, count: Int.random(in: 1...4_096, using: &generator)))
        default:
            lines[at] = Array(lines[at].shuffled(using: &generator).prefix(8))
        }
    }

    /// `bytes` with the first `pattern` replaced, or nil when it has none.
    private func replacing(_ bytes: [UInt8], _ pattern: [UInt8], _ replacement: [UInt8]) -> [UInt8]? {
        guard pattern.count <= bytes.count else { return nil }
        for start in 0...(bytes.count - pattern.count) where bytes[start..<(start + pattern.count)].elementsEqual(pattern) {
            return Array(bytes[..<start]) + replacement + Array(bytes[(start + pattern.count)...])
        }
        return nil
    }

    /// Replaces one run of digits with another small number (another id, sequence number or
    /// count) or, one time in three, an extreme one.
    private func replaceNumber(in line: inout [UInt8], using generator: inout SeededGenerator) {
        let digits = line.indices.filter { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[$0]) }
        guard let pick = digits.randomElement(using: &generator) else { return }
        var start = pick, end = pick
        while start > 0, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[start - 1]) { start -= 1 }
        while end + 1 < line.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[end + 1]) { end += 1 }
        let number = Int.random(in: 0..<3, using: &generator) == 0
            ? Self.extremeNumbers.randomElement(using: &generator)! : String(Int.random(in: 0...40, using: &generator))
        line.replaceSubrange(start...end, with: Array(number.utf8))
    }

    /// Replaces the contents of one JSON string (a value or a key) with a hostile one.
    private func replaceString(in line: inout [UInt8], using generator: inout SeededGenerator) {
        let quotes = line.indices.filter { line[$0] == UInt8(ascii: "\"") && ($0 == 0 || line[$0 - 1] != UInt8(ascii: "\\")) }
        guard quotes.count >= 2 else { return }
        let pair = Int.random(in: 0..<(quotes.count / 2), using: &generator)
        let (open, close) = (quotes[2 * pair], quotes[2 * pair + 1])
        let text = Self.hostileStrings.randomElement(using: &generator)!
        line.replaceSubrange((open + 1)..<close, with: Array(text.utf8))
    }
}
