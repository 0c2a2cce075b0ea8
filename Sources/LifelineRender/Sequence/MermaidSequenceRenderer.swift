import LifelineAnalysis
import LifelineLog

/// Writes a trace as a Mermaid `sequenceDiagram`, which GitHub renders inline in Markdown.
///
/// It shows what ``SequenceSVGRenderer`` draws: the same participants in the same order,
/// headed by the same two lines (a pipeline's operators folded into one, as the SVG folds them),
/// the same calls with `activate`/`deactivate` for their nesting, returned demand as dashed
/// arrows, deallocations, marks, folded runs and diagnosis notes, and, for a log that ended
/// without its end record, a note over each stage of a pipeline still open saying what it waits
/// on (`⋯ waits on First.Inner #3 (Search.swift:12)`). Calls on a thread or queue
/// other than the first one are shaded, and a note names the thread wherever it changes.
/// Every label is escaped with Mermaid entity codes (`#quot;`, `#35;`, `#59;`, `#lt;`).
///
/// A trace too wide for the page is cut where the SVG cuts it (``SequenceModel/sections(fitting:)``):
/// one Mermaid source holds one diagram, so the result is then Markdown, for a doc page to
/// embed, with one ` ```mermaid ` block per section, each headed by its place among the
/// sections and the events it draws (`**Part 2 of 14** · events @345 to @612`), and each
/// with only the participants its rows use. A call still running where a section begins is
/// activated again at its top, under a note `⋯ continues @527 receive(value)`, and one still
/// running at its end is closed there under `⋯ goes on below` (Mermaid closes only what it
/// opened, and draws an activation when it closes). A trace that fits is one `sequenceDiagram`.
///
/// ```swift
/// let mermaid = MermaidSequenceRenderer.render(trace)
/// let markdown = MermaidSequenceRenderer.isMarkdown(mermaid) ? mermaid : "```mermaid\n" + mermaid + "```\n"
/// ```
public enum MermaidSequenceRenderer {
    private static let labelLimit = 72
    private static let valueLimit = 32
    /// Translucent shades that read on light and dark pages alike.
    private static let shades = [
        "rgba(9,105,218,0.14)", "rgba(188,76,0,0.14)", "rgba(26,127,55,0.14)",
        "rgba(130,80,223,0.14)", "rgba(14,124,134,0.14)", "rgba(191,57,137,0.14)",
    ]

    /// Renders `trace` as Mermaid source, or, when it is cut into sections, as Markdown with
    /// one Mermaid diagram per section.
    ///
    /// - Parameters:
    ///   - trace: The recorded trace.
    ///   - diagnoses: Findings to write as notes after their last evidence event.
    ///   - options: Folding and the page width to fit; the appearance is ignored.
    ///   - lifecycles: The lifecycles of `trace`, when the caller has them already (it
    ///     diagnosed the trace): they are not rebuilt.
    /// - Returns: The `sequenceDiagram` source, or the Markdown of the sections, ending with a
    ///   newline.
    public static func render(
        _ trace: Trace, diagnoses: [Diagnosis] = [], options: SequenceDiagramOptions = .init(), lifecycles: TraceLifecycles? = nil
    ) -> String {
        let model = SequenceModel.fitted(trace, diagnoses: diagnoses, options: options, lifecycles: lifecycles)
        guard !model.lanes.isEmpty else {
            return ["sequenceDiagram", "    participant L0 as (no events recorded)"].joined(separator: "\n") + "\n"
        }
        // Calls are shaded by thread when the calls of the whole trace ran on more than one.
        let shadesContexts = model.calledContexts.count > 1
        let sections = model.sections(fitting: options.pageWidth)
        guard sections.count > 1 else { return diagram(of: model, shadesContexts: shadesContexts) }
        var markdown = ""
        for (number, section) in sections.enumerated() {
            if number > 0 { markdown += "\n" }
            markdown += "**Part \(number + 1) of \(sections.count)**" + (eventRange(of: section).map { " · events \($0)" } ?? "") + "\n\n"
            markdown += "```mermaid\n" + diagram(of: section, shadesContexts: shadesContexts) + "```\n"
        }
        return markdown
    }

    /// Whether `rendered` (what ``render(_:diagnoses:options:lifecycles:)`` returned) is
    /// Markdown holding one Mermaid diagram per section, rather than one diagram's source.
    public static func isMarkdown(_ rendered: String) -> Bool {
        rendered.hasPrefix("**Part ")
    }

    /// The Mermaid sources in `rendered`: the diagrams of a Markdown document's blocks, or
    /// `rendered` itself.
    public static func diagrams(in rendered: String) -> [Substring] {
        guard isMarkdown(rendered) else { return [rendered[...]] }
        return rendered.components(separatedBy: "```mermaid\n").dropFirst().compactMap { block in
            block.range(of: "\n```\n").map { block[..<$0.lowerBound] + "\n" }.map(Substring.init)
        }
    }

    /// The events a section draws, as `@345 to @612`: its first and last rows' (a folded run
    /// says what it stands for itself, and an interleaved one reaches past the section's
    /// rows); `nil` for rows without events.
    private static func eventRange(of model: SequenceModel) -> String? {
        var low = UInt64.max, high = UInt64.min
        for seq in model.steps.lazy.compactMap(\.seq) { (low, high) = (min(low, seq), max(high, seq)) }
        guard low <= high else { return nil }
        return low == high ? "@\(low)" : "@\(low) to @\(high)"
    }

    /// One `sequenceDiagram` of `model`, ending with a newline.
    private static func diagram(of model: SequenceModel, shadesContexts: Bool) -> String {
        var lines = ["sequenceDiagram"]
        // Each heading in the SVG's two lines, so that a participant is no wider than the SVG's lane.
        for lane in model.lanes {
            let type = MermaidText.escape(lane.typeLine, limit: labelLimit), identity = MermaidText.escape(lane.identityLine, limit: labelLimit)
            lines.append("    participant L\(lane.index) as \(type)<br/>\(identity)")
        }
        let everyone = model.lanes.count > 1 ? "L0,L\(model.lanes.count - 1)" : "L0"
        // Calls still running from the part above go on here: Mermaid closes only an activation it opened.
        for (lane, captions) in model.carriedCaptions {
            lines.append("    Note over L\(lane): ⋯ continues " + captions.map(MermaidText.escapeClean).joined(separator: ", "))
        }
        for carried in model.carriedActivations { lines.append("    activate L\(carried.lane)") }
        var currentContext: Int?
        var shading = false
        for step in model.steps {
            if shadesContexts, step.isColouredByContext, let context = step.context, context != currentContext {
                if shading { lines.append("    end") }
                shading = context != 0
                if shading { lines.append("    rect \(shades[context % shades.count])") }
                let name = MermaidText.escape(model.contexts[context].name, limit: labelLimit)
                lines.append("    Note over \(everyone): on \(name)")
                currentContext = context
            }
            lines += statements(for: step, model: model, everyone: everyone)
        }
        if shading { lines.append("    end") }
        if model.continuesBelow {
            // Mermaid draws an activation when it closes: those that go on in the next part close here.
            for (lane, running) in model.runningAtEnd.enumerated() where running > 0 {
                lines.append("    Note over L\(lane): ⋯ goes on below")
                lines += Array(repeating: "    deactivate L\(lane)", count: running)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func statements(for step: SequenceStep, model: SequenceModel, everyone: String) -> [String] {
        let cited = step.citedBy.isEmpty ? "" : " [" + step.citedBy.map { "⚑\($0)" }.joined(separator: " ") + "]"
        switch step.content {
        case .call(let caller, let callee, let kind, _):
            let label = MermaidText.escape(kind.label(valueLimit: valueLimit), limit: labelLimit) + cited
            return ["    L\(caller ?? callee)->>L\(callee): \(label)", "    activate L\(callee)"]
        case .callReturn(let caller, let callee, _, _, let demand):
            guard let demand else { return ["    deactivate L\(callee)"] }
            return ["    L\(callee)-->>L\(caller ?? callee): \(CallKind.name(of: demand))\(cited)", "    deactivate L\(callee)"]
        case .deallocation(let lane, let evidence):
            switch evidence {
            case .exact: return ["    Note over L\(lane): ✕ deallocated\(cited)"]
            case .observed(let aliveAt): return ["    Note over L\(lane): ✕ found deallocated (alive at @\(aliveAt))\(cited)"]
            }
        case .mark(let label):
            return ["    Note over \(everyone): ◆ \(MermaidText.escape(label, limit: labelLimit))\(cited)"]
        case .fold(let run):
            let lanes = run.lanes.lowerBound == run.lanes.upperBound
                ? "L\(run.lanes.lowerBound)" : "L\(run.lanes.lowerBound),L\(run.lanes.upperBound)"
            return ["    Note over \(lanes): ⋮ \(MermaidText.escapeClean(run.summary)) ⋮"]
        case .note(let note):
            return ["    Note right of L\(note.lane): " + note.textLines.map(MermaidText.escapeClean).joined(separator: "<br/>")]
        case .logEnd(let text):
            return ["    Note over \(everyone): ‖ \(MermaidText.escape(text, limit: DisplayText.nameLimit))"]
        case .wait(let wait):
            return ["    Note over L\(wait.lane): " + MermaidText.escape(wait.caption, limit: DisplayText.nameLimit)]
        }
    }
}
