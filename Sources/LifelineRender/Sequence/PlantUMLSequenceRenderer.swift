import LifelineAnalysis
import LifelineLog

/// Writes a trace as a PlantUML sequence diagram.
///
/// It shows what ``SequenceSVGRenderer`` draws: the same participants in the same order,
/// the same calls with activations coloured by thread, returned demand as dashed arrows,
/// `destroy` for deallocations, marks, folded runs and diagnosis notes, and, for a log that
/// ended without its end record, a note over each stage of a pipeline still open saying what it
/// waits on (`⋯ waits on First.Inner #3 (Search.swift:12)`). A
/// divider names the thread or queue wherever it changes. Every label is escaped: Creole
/// markup, tags, quotes and backslashes are written as character references.
///
/// PlantUML crops, without a word, a PNG (its default picture) larger than 4,096 px a side
/// (unless `PLANTUML_LIMIT_SIZE` is raised), and a real app's diagram is larger. So a trace is
/// cut the way the SVG is: into one diagram (`@startuml` … `@enduml`) per section that fits
/// the page width, each with only the participants its rows use, and each diagram into pages
/// (`newpage`) of about 2,400 to 3,000 px, cut where no call is open when there is one.
/// `plantuml` writes a picture per page: `sequence.png`, `sequence_001.png`, …
///
/// ```swift
/// try PlantUMLSequenceRenderer.render(trace).write(toFile: "sequence.puml", atomically: true, encoding: .utf8)
/// // plantuml -tsvg sequence.puml
/// ```
public enum PlantUMLSequenceRenderer {
    private static let labelLimit = 72
    private static let valueLimit = 32
    /// Activation colours by thread: light tints of the SVG's thread colours.
    private static let activationColours = ["#C8DEF8", "#F8D9C2", "#C6EBCF", "#E3D6FA", "#C3E8EB", "#F6D0E6"]

    /// Renders `trace` as PlantUML source.
    ///
    /// - Parameters:
    ///   - trace: The recorded trace.
    ///   - diagnoses: Findings to write as notes after their last evidence event.
    ///   - options: Folding and the page width to fit; the appearance is ignored.
    ///   - lifecycles: The lifecycles of `trace`, when the caller has them already (it
    ///     diagnosed the trace): they are not rebuilt.
    /// - Returns: The source, one diagram from `@startuml` to `@enduml` per section, ending
    ///   with a newline.
    public static func render(
        _ trace: Trace, diagnoses: [Diagnosis] = [], options: SequenceDiagramOptions = .init(), lifecycles: TraceLifecycles? = nil
    ) -> String {
        let model = SequenceModel.fitted(trace, diagnoses: diagnoses, options: options, lifecycles: lifecycles)
        guard !model.lanes.isEmpty else {
            return (header + ["participant \"(no events recorded)\" as L0", "@enduml"]).joined(separator: "\n") + "\n"
        }
        let sections = drawable(model.sectionRanges(fitting: options.pageWidth), of: model)
        // Dividers name the thread or queue when the calls of the whole trace ran on more than one.
        let dividing = model.calledContexts.count > 1
        let diagrams = sections.count > 1 ? model.parts(sections).map { diagram(of: $0, dividing: dividing) } : [diagram(of: model, dividing: dividing)]
        return diagrams.joined(separator: "\n\n") + "\n"
    }

    /// The sections joined so that each holds a call: PlantUML refuses a diagram without a
    /// message, so a section of deallocations and marks alone joins the one before it (or,
    /// first, the one after).
    static func drawable(_ sections: [Range<Int>], of model: SequenceModel) -> [Range<Int>] {
        var joined: [Range<Int>] = []
        var lastHasCall = false
        for section in sections {
            let hasCall = model.steps[section].contains { step in
                if case .call = step.content { return true }
                return false
            }
            if let last = joined.last, !hasCall || !lastHasCall {
                joined[joined.count - 1] = last.lowerBound..<section.upperBound
                lastHasCall = lastHasCall || hasCall
            } else {
                joined.append(section)
                lastHasCall = hasCall
            }
        }
        return joined
    }

    private static let header = ["@startuml", "hide footbox", "skinparam shadowing false"]

    /// The height, in PlantUML's pixels, a page is filled to before it is cut where no call is
    /// open: well inside PlantUML's 4,096 px, since rows are estimated, not measured.
    private static let pageHeight = 2_400

    /// The height past which a page is cut even inside a call (its activation goes on on the
    /// next page): one call that runs longer than a page would otherwise be cropped.
    private static let longestPage = 2_800

    /// One section as a diagram of its own, cut into pages, with a divider wherever the calls
    /// move to another thread or queue when `dividing`.
    private static func diagram(of model: SequenceModel, dividing: Bool) -> String {
        var lines = header
        for lane in model.lanes {
            let type = PlantUMLText.escape(lane.typeLine, limit: labelLimit)
            let identity = PlantUMLText.escape(lane.identityLine, limit: labelLimit)
            lines.append("participant \"\(type)\\n\(identity)\" as L\(lane.index)")
        }
        let everyone = model.lanes.count > 1 ? "L0, L\(model.lanes.count - 1)" : "L0"
        var height = headingsHeight
        // Calls still running from the diagram above go on here.
        for (lane, captions) in model.carriedCaptions {
            lines.append("hnote over L\(lane) : ⋯ continues " + captions.map(PlantUMLText.escapeClean).joined(separator: ", "))
            height += rowHeight
        }
        for carried in model.carriedActivations {
            lines.append("activate L\(carried.lane) \(activationColours[(carried.context ?? 0) % activationColours.count])")
        }
        var openCalls = model.carriedActivations.count
        var currentContext: Int?
        var hasMessage = false
        for step in model.steps {
            var statements = statements(for: step, everyone: everyone)
            if case .deallocation = step.content, !hasMessage {
                // PlantUML refuses `destroy` before a diagram's first message; the note still
                // says the object was deallocated.
                statements.removeFirst()
            }
            if height >= pageHeight && openCalls == 0 || height >= longestPage {
                lines.append("newpage")
                height = headingsHeight
                currentContext = nil
            }
            if dividing, step.isColouredByContext, let context = step.context, context != currentContext {
                lines.append("== on \(PlantUMLText.escape(model.contexts[context].name, limit: labelLimit)) ==")
                height += dividerHeight
                currentContext = context
            }
            lines += statements
            height += estimatedHeight(of: step)
            switch step.content {
            case .call: openCalls += 1; hasMessage = true
            case .callReturn: openCalls = max(openCalls - 1, 0)
            default: break
            }
        }
        if model.continuesBelow {
            for (lane, running) in model.runningAtEnd.enumerated() where running > 0 {
                lines.append("hnote over L\(lane) : ⋯ goes on below")
            }
        }
        lines.append("@enduml")
        return lines.joined(separator: "\n")
    }

    /// PlantUML's heights for its default skin (13 px text), measured on its pictures of the
    /// gallery and of the realistic apps, rounded up: the participants' boxes (two lines of
    /// text), an arrow, a line of a note, a divider.
    private static let headingsHeight = 60, rowHeight = 30, noteLineHeight = 16, dividerHeight = 40

    /// How tall `step` draws.
    private static func estimatedHeight(of step: SequenceStep) -> Int {
        switch step.content {
        case .callReturn(_, _, _, _, returnedDemand: nil): return 0 // the end of an activation, no arrow
        case .call, .callReturn, .mark, .fold, .logEnd, .wait: return rowHeight
        case .deallocation: return 2 * rowHeight
        case .note(let note): return rowHeight + noteLineHeight * note.textLines.count
        }
    }

    private static func statements(for step: SequenceStep, everyone: String) -> [String] {
        let cited = step.citedBy.isEmpty ? "" : " [" + step.citedBy.map { "⚑\($0)" }.joined(separator: " ") + "]"
        switch step.content {
        case .call(let caller, let callee, let kind, _):
            let label = PlantUMLText.escape(kind.label(valueLimit: valueLimit), limit: labelLimit) + cited
            let colour = activationColours[(step.context ?? 0) % activationColours.count]
            return ["L\(caller ?? callee) -> L\(callee) : \(label)", "activate L\(callee) \(colour)"]
        case .callReturn(let caller, let callee, _, _, let demand):
            guard let demand else { return ["deactivate L\(callee)"] }
            return ["L\(callee) --> L\(caller ?? callee) : \(PlantUMLText.escapeClean(CallKind.name(of: demand)))\(cited)",
                    "deactivate L\(callee)"]
        case .deallocation(let lane, let evidence):
            let text: String
            switch evidence {
            case .exact: text = "✕ deallocated"
            case .observed(let aliveAt): text = "✕ found deallocated (alive at @\(aliveAt))"
            }
            return ["destroy L\(lane)", "hnote over L\(lane) : \(text)\(cited)"]
        case .mark(let label):
            return ["hnote over \(everyone) : ◆ \(PlantUMLText.escape(label, limit: labelLimit))\(cited)"]
        case .fold(let run):
            // A note across the run's lanes, as the SVG writes it, not a delay (`...`):
            // PlantUML refuses an activation, deactivation or `destroy` right after a delay,
            // and the rows that follow a fold often end the calls it was folded inside.
            let lanes = run.lanes.lowerBound == run.lanes.upperBound
                ? "L\(run.lanes.lowerBound)" : "L\(run.lanes.lowerBound), L\(run.lanes.upperBound)"
            return ["hnote over \(lanes) : ⋮ \(PlantUMLText.escapeClean(run.summary)) ⋮"]
        case .note(let note):
            return ["note right of L\(note.lane) #FFF8C5"] + note.textLines.map(PlantUMLText.escapeNoteLine) + ["end note"]
        case .logEnd(let text):
            return ["hnote over \(everyone) : ‖ \(PlantUMLText.escape(text, limit: DisplayText.nameLimit))"]
        case .wait(let wait):
            return ["hnote over L\(wait.lane) : " + PlantUMLText.escape(wait.caption, limit: DisplayText.nameLimit)]
        }
    }
}
