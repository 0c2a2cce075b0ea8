import ArgumentParser
import Foundation
import LifelineAnalysis
import LifelineLog
import LifelineRender

/// Writes one picture per pipeline into a folder, and `index.md` linking them with their
/// findings: what `render --split` and the gallery's multi-pipeline stories write.
enum SplitPictures {
    /// The file name of a pipeline's picture in `format`: `P3.svg`.
    static func fileName(_ id: Pipeline.ID, format: RenderFormat) -> String {
        "\(id).\(format.fileExtension)"
    }

    /// Draws every pipeline of `trace` in `format` into `folder` (created if missing), with
    /// `index.md`. `diagnoses` are the whole trace's findings in ``TraceAnalyzer`` order;
    /// with `between`, each picture holds only the pipeline's events between the marks (and a
    /// pipeline with none there is not drawn), numbered as in the whole trace.
    /// Returns the pipelines drawn, in order.
    @discardableResult
    static func write(
        _ trace: Trace, diagnoses: [Diagnosis], format: RenderFormat, into folder: URL, between: TraceSelection.MarkRange? = nil,
        folding: Bool = true, axis: MarbleDiagramOptions.Axis = .sequence, theme: PictureTheme = .auto,
        collapse: SequenceDiagramOptions.Collapse = .auto, warnings: Bool = true
    ) throws -> [Pipeline] {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            StandardError.write("error: cannot create the folder \(folder.path): \(error.localizedDescription)")
            throw ExitCode(2)
        }
        var pipelines = TracePipelines(TraceLifecycles(trace)).pipelines
        let showsNotes = format == .svg || format == .mermaid || format == .plantuml
        for pipeline in pipelines {
            let chosen = try TraceSelection(pipelines: [pipeline.id.description], between: between).apply(to: trace, diagnoses: diagnoses)
            guard chosen.trace.events.contains(where: { $0.kind.name != "mark" }) else {
                pipelines.removeAll { $0.id == pipeline.id }
                continue
            }
            let notes = showsNotes ? chosen.diagnoses : []
            let snapshot = format.drawsOwnershipGraph ? chosen.trace.fullestSnapshot : nil
            if format.drawsOwnershipGraph && snapshot == nil { continue }
            if let snapshot, format != .dot { try PageFit.checkGraphSize(snapshot) }
            let picture = try format.render(chosen.trace, snapshot: snapshot, diagnoses: notes, folding: folding, axis: axis,
                                            theme: theme, collapse: collapse, findingNumbers: chosen.findingNumbers)
            if warnings {
                PageFit.warnIfTooWide(format: format, picture: picture, trace: chosen.trace, diagnoses: notes, collapse: collapse,
                                      name: pipeline.id.description)
            }
            try OutputFile.write(Data(picture), to: folder.appendingPathComponent(fileName(pipeline.id, format: format)).path)
        }
        let index = PipelineIndex(trace: trace, diagnoses: diagnoses, drawn: Set(pipelines.map(\.id))) { fileName($0, format: format) }
        try OutputFile.write(index.markdown(), to: folder.appendingPathComponent("index.md").path)
        return pipelines
    }
}
