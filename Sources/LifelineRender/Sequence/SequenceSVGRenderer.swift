import LifelineAnalysis
import LifelineLog

/// Draws a trace as a sequence diagram in SVG, laid out by Lifeline itself.
///
/// One lifeline per publisher, subscription and subscriber, upstream on the left. Each call
/// is an arrow in the colour of the thread or queue it ran on, with an activation bar on the
/// callee for as long as the call ran; a value's returned demand comes back as a dashed
/// arrow. A deallocation ends its lifeline with ✕. Diagnoses are notes placed after their
/// last evidence event, and the events they cite carry the note's number in the left column,
/// beside each event's sequence number. For a log that ended without its end record (a
/// program killed while it hung), each stage of a pipeline still open gets, under every other
/// row, a dashed bar open at its foot from its lane's last call down to what it waits on
/// (`waits on First.Inner #3 (Search.swift:12)`), the stage where the `waits-on` chain ends in
/// bold (`nothing was sent to it`), and under them a line says where the log ended.
///
/// The SVG is self-contained (its own `<style>`, system fonts, no scripts), has a `viewBox`,
/// and is byte-for-byte the same for the same input. By default it carries light and dark
/// colours on a transparent background; ``SVGAppearance/light`` and ``SVGAppearance/dark``
/// bake one palette in, on an opaque background.
///
/// ```swift
/// let trace = try TraceReader.read(contentsOf: "pipeline.lifeline")
/// let svg = SequenceSVGRenderer.render(trace, diagnoses: findings)
/// try svg.write(toFile: "sequence.svg", atomically: true, encoding: .utf8)
/// ```
public enum SequenceSVGRenderer {
    /// Renders `trace` as an SVG document.
    ///
    /// - Parameters:
    ///   - trace: The recorded trace.
    ///   - diagnoses: Findings to draw as notes at their evidence events.
    ///   - options: Folding, collapsing, the page width to fit, and colours.
    ///   - lifecycles: The lifecycles of `trace`, when the caller has them already (it
    ///     diagnosed the trace): they are not rebuilt.
    /// - Returns: The SVG document, ending with a newline.
    public static func render(
        _ trace: Trace, diagnoses: [Diagnosis] = [], options: SequenceDiagramOptions = .init(), lifecycles: TraceLifecycles? = nil
    ) -> String {
        let model = SequenceModel.fitted(trace, diagnoses: diagnoses, options: options, lifecycles: lifecycles)
        let title = "Sequence diagram of \(trace.header.processName)"
        let sections = model.sections(fitting: options.pageWidth)
        guard sections.count == 1 else {
            return SequenceSVGLayout.draw(sections: sections, pageWidth: options.pageWidth, title: title, appearance: options.appearance)
        }
        var layout = SequenceSVGLayout(model: model, pageWidth: options.pageWidth)
        return layout.draw(title: title, appearance: options.appearance)
    }

    /// How wide the SVG of `trace` is laid out for `options`, in pixels, before notes: what
    /// the text formats are checked against the page width with. With `sectioned`, the widest
    /// of the sections the SVG, Mermaid and PlantUML cut a picture too wide for the page into;
    /// without, the picture side by side.
    public static func estimatedWidth(
        _ trace: Trace, diagnoses: [Diagnosis] = [], options: SequenceDiagramOptions = .init(), sectioned: Bool = false
    ) -> Int {
        let model = SequenceModel.fitted(trace, diagnoses: diagnoses, options: options)
        let parts = sectioned ? model.sections(fitting: options.pageWidth) : [model]
        return parts.map { part in
            (0...SequenceSVGLayout.tightestPacking).lazy.map { SequenceSVGLayout.lanesWidth(of: part, packing: $0) }
                .first { $0 <= options.pageWidth } ?? SequenceSVGLayout.lanesWidth(of: part, packing: SequenceSVGLayout.tightestPacking)
        }.max() ?? 0
    }
}
