import LifelineAnalysis

/// A diagnosis as a sequence diagram shows it.
struct DiagnosisNote: Hashable, Sendable {
    /// The finding's number: its place in the order ``TraceAnalyzer`` gives findings (what
    /// `--finding N` counts), unless the options number them otherwise.
    let number: Int
    /// The diagnosis.
    let diagnosis: Diagnosis
    /// The lane the note is drawn beside.
    let lane: Int

    /// `⚠ warning subscriber-deallocated-early`.
    var heading: String { "\(Self.symbol(diagnosis.severity)) \(number) \(diagnosis.severity.rawValue): \(diagnosis.code)" }
    /// `Evidence: @3, @7`, or that the diagnosis cites no event.
    var evidenceLine: String {
        diagnosis.evidence.isEmpty
            ? "Evidence: none recorded"
            : "Evidence: " + diagnosis.evidence.map { "@\($0)" }.joined(separator: ", ")
    }

    /// `Fix: …`, with the fix's code spans (Markdown backticks, for the docs and the
    /// terminal) shown in quotes: `` `[weak self]` `` becomes ‘[weak self]’.
    var fixLine: String {
        var text = "Fix: "
        var opened = false
        for character in diagnosis.fix {
            if character == "`" {
                text.append(opened ? "’" : "‘")
                opened.toggle()
            } else {
                text.append(character)
            }
        }
        return text
    }

    /// The note as the text formats (Mermaid, PlantUML) write it: the heading, then the
    /// message and the fix wrapped at 70 characters, then the evidence.
    var textLines: [String] {
        [DisplayText(heading, limit: 120).short]
            + SequenceSVGLayout.wrap(diagnosis.message, width: 70, maxLines: 6)
            + SequenceSVGLayout.wrap(fixLine, width: 70, maxLines: 6)
            + [evidenceLine]
    }

    static func symbol(_ severity: Diagnosis.Severity) -> String {
        switch severity {
        case .info: return "ℹ"
        case .warning: return "⚠"
        case .error: return "✖"
        }
    }
}
