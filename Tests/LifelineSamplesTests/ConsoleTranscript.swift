import LifelineSamples

/// The lines a scenario printed in one untraced run, with ways to find lines and sections.
struct ConsoleTranscript {
    let lines: [String]

    /// Runs `scenario` to its end and keeps what it printed.
    init(running scenario: SampleScenario) {
        let console = SampleConsole()
        scenario.run(console)
        lines = console.lines
    }

    private init(lines: [String]) {
        self.lines = lines
    }

    /// The lines after the line `header` and before the next of `nextHeaders` (or the end).
    func section(after header: String, before nextHeaders: [String] = []) -> ConsoleTranscript {
        guard let start = lines.firstIndex(of: header) else { return ConsoleTranscript(lines: []) }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { nextHeaders.contains($0) } ?? rest.endIndex
        return ConsoleTranscript(lines: Array(rest[..<end]))
    }

    /// Whether `expected` all occur, in this order (other lines may come between them).
    func containsInOrder(_ expected: [String]) -> Bool {
        var remaining = expected[...]
        for line in lines where line == remaining.first {
            remaining = remaining.dropFirst()
        }
        return remaining.isEmpty
    }

    /// Whether any line starts with `prefix`.
    func containsLine(startingWith prefix: String) -> Bool {
        lines.contains { $0.hasPrefix(prefix) }
    }
}
