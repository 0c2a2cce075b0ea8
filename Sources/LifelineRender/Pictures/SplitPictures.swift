import Foundation
import LifelineAnalysis
import LifelineLog

/// Writes one picture per pipeline into a folder, and `index.md` linking them with their
/// findings: what `render --split` and the gallery's multi-pipeline stories write.
public enum SplitPictures {
    /// The file name of a pipeline's picture in `format`: `P3.svg`, and `P3~dark.svg` for its
    /// `dark` copy (the name DocC pairs with `P3.svg`).
    static func fileName(_ id: Pipeline.ID, format: PictureFormat, copy: PictureTheme? = nil) -> String {
        "\(id)\(copy.map { "~\($0.rawValue)" } ?? "").\(format.fileExtension)"
    }

    /// Draws every pipeline of `trace` in `format` into `folder` (created if missing), with
    /// `index.md`. `diagnoses` are the whole trace's findings in ``TraceAnalyzer`` order;
    /// with `between`, each picture holds only the pipeline's events between the marks (and a
    /// pipeline with none there is not drawn), numbered as in the whole trace. With
    /// `darkCopy`, a format with a theme is drawn twice, in `theme` (`P3.svg`) and in the dark
    /// palette (`P3~dark.svg`), for pages that pair light and dark pictures; `index.md` links
    /// the first. `warn` is given each picture too wide for a page
    /// (``PageFit/tooWideWarning(format:picture:trace:diagnoses:collapse:name:)``) and each
    /// Mermaid diagram too long for Mermaid (``PageFit/tooLongWarning(format:picture:name:)``)
    /// or cut into sections (``PageFit/markdownWarning(format:picture:fileName:)``).
    /// `lifecycles`, the lifecycles of `trace` when the caller has them (it diagnosed the
    /// trace), are not rebuilt; the trace's pipelines are found once for every picture.
    /// Returns the pipelines drawn, in order.
    ///
    /// - Throws: ``OutputFile/Failure`` when a file cannot be written,
    ///   ``PageFit/PictureTooLarge`` for an ownership graph too big to lay out, and what
    ///   ``PictureFormat/render(_:snapshot:diagnoses:folding:axis:theme:collapse:findingNumbers:layout:)``
    ///   throws.
    @discardableResult
    public static func write(
        _ trace: Trace, diagnoses: [Diagnosis], format: PictureFormat, into folder: URL, between: TraceSelection.MarkRange? = nil,
        folding: Bool = true, axis: MarbleDiagramOptions.Axis = .sequence, theme: PictureTheme = .auto,
        darkCopy: Bool = false, collapse: SequenceDiagramOptions.Collapse = .auto, layout: any OwnershipGraphLayout,
        lifecycles: TraceLifecycles? = nil, warn: (String) -> Void = { _ in }
    ) throws -> [Pipeline] {
        try OutputFile.createFolder(folder.path)
        let all = TracePipelines(lifecycles ?? TraceLifecycles(trace))
        let source = SelectableTrace(trace, diagnoses: diagnoses, pipelines: all)
        var pipelines: [Pipeline] = []
        for pipeline in all.pipelines {
            let chosen = try TraceSelection(pipelines: [pipeline.id.description], between: between).apply(to: source)
            guard chosen.trace.events.contains(where: { $0.kind.name != "mark" }) else { continue }
            let notes = format.showsFindings ? chosen.diagnoses : []
            let snapshot = format.drawsOwnershipGraph ? chosen.trace.fullestSnapshot : nil
            if format.drawsOwnershipGraph && snapshot == nil { continue }
            pipelines.append(pipeline)
            if let snapshot, format != .dot { try PageFit.checkGraphSize(snapshot) }
            let copies: [(theme: PictureTheme, name: PictureTheme?)] = [(theme, nil)] + (darkCopy && format.hasTheme ? [(.dark, .dark)] : [])
            for copy in copies {
                let picture = try format.render(chosen.trace, snapshot: snapshot, diagnoses: notes, folding: folding, axis: axis,
                                                theme: copy.theme, collapse: collapse, findingNumbers: chosen.findingNumbers, layout: layout)
                if copy.name == nil, let warning = PageFit.tooWideWarning(
                    format: format, picture: picture, trace: chosen.trace, diagnoses: notes, collapse: collapse, name: pipeline.id.description
                ) {
                    warn(warning)
                }
                if copy.name == nil, let warning = PageFit.tooLongWarning(format: format, picture: picture, name: pipeline.id.description) {
                    warn(warning)
                }
                let name = fileName(pipeline.id, format: format, copy: copy.name)
                if let warning = PageFit.markdownWarning(format: format, picture: picture, fileName: name) { warn(warning) }
                try OutputFile.write(Data(picture), to: folder.appendingPathComponent(name).path)
            }
        }
        let index = PipelineIndex(trace: trace, diagnoses: diagnoses, drawn: Set(pipelines.map(\.id)), pipelines: all) {
            fileName($0, format: format)
        }
        try OutputFile.write(index.markdown(), to: folder.appendingPathComponent("index.md").path)
        return pipelines
    }
}
