import LifelineAnalysis
import LifelineLog

/// Writes a trace as a PlantUML sequence diagram.
///
/// It shows what ``SequenceSVGRenderer`` draws: the same participants in the same order,
/// the same calls with activations coloured by thread, returned demand as dashed arrows,
/// `destroy` for deallocations, marks, folded runs (as delays) and diagnosis notes. A
/// divider names the thread or queue wherever it changes. Every label is escaped: Creole
/// markup, tags, quotes and backslashes are written as character references.
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
    ///   - options: Folding; the appearance is ignored.
    ///   - lifecycles: The lifecycles of `trace`, when the caller has them already (it
    ///     diagnosed the trace): they are not rebuilt.
    /// - Returns: The source from `@startuml` to `@enduml`, ending with a newline.
    public static func render(
        _ trace: Trace, diagnoses: [Diagnosis] = [], options: SequenceDiagramOptions = .init(), lifecycles: TraceLifecycles? = nil
    ) -> String {
        let model = SequenceModel.fitted(trace, diagnoses: diagnoses, options: options, lifecycles: lifecycles)
        var lines = ["@startuml", "hide footbox", "skinparam shadowing false"]
        guard !model.lanes.isEmpty else {
            return (lines + ["participant \"(no events recorded)\" as L0", "@enduml"]).joined(separator: "\n") + "\n"
        }
        for lane in model.lanes {
            let type = PlantUMLText.escape(lane.typeLine, limit: labelLimit)
            let identity = PlantUMLText.escape(lane.identityLine, limit: labelLimit)
            lines.append("participant \"\(type)\\n\(identity)\" as L\(lane.index)")
        }
        let everyone = model.lanes.count > 1 ? "L0, L\(model.lanes.count - 1)" : "L0"
        var currentContext: Int?
        for step in model.steps {
            if model.contexts.count > 1, let context = step.context, context != currentContext {
                lines.append("== on \(PlantUMLText.escape(model.contexts[context].name, limit: labelLimit)) ==")
                currentContext = context
            }
            lines += statements(for: step, everyone: everyone)
        }
        lines.append("@enduml")
        return lines.joined(separator: "\n") + "\n"
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
            case .observed(let aliveAt): text = "✕ found deallocated (alive at &#35;\(aliveAt))"
            }
            return ["destroy L\(lane)", "hnote over L\(lane) : \(text)\(cited)"]
        case .mark(let label):
            return ["hnote over \(everyone) : ◆ \(PlantUMLText.escape(label, limit: labelLimit))\(cited)"]
        case .fold(let run):
            return ["...\(PlantUMLText.escapeClean(run.summary))..."]
        case .note(let note):
            return ["note right of L\(note.lane) #FFF8C5"] + note.textLines.map(PlantUMLText.escapeNoteLine) + ["end note"]
        }
    }
}
