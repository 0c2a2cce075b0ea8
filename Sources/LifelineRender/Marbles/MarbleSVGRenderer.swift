import LifelineAnalysis
import LifelineLog

/// Draws a trace as a marble diagram in SVG: one timeline per hop, upstream at the top.
///
/// A hop is a subscriber and the subscription that delivers to it. Each value is a marble
/// in the colour of the thread it arrived on, with its description inside (shortened; the
/// full text is the marble's tooltip). A finished completion is `|`, a failure is ✕, a
/// cancel is ⊘. A timeline starts when its subscriber receives the subscription and ends at
/// its completion or cancel; an arrow means it was still open when recording stopped.
///
/// ```swift
/// let svg = MarbleSVGRenderer.render(trace, options: .init(axis: .time))
/// ```
public enum MarbleSVGRenderer {
    /// Renders `trace` as an SVG marble diagram.
    ///
    /// - Parameters:
    ///   - trace: The recorded trace.
    ///   - options: The axis, folding and colours.
    ///   - lifecycles: The lifecycles of `trace`, when the caller has them already (it
    ///     diagnosed the trace): they are not rebuilt.
    /// - Returns: The SVG document, ending with a newline.
    public static func render(_ trace: Trace, options: MarbleDiagramOptions = .init(), lifecycles: TraceLifecycles? = nil) -> String {
        let model = SequenceModel(trace: trace, diagnoses: [], folding: options.folding, foldingInterleaved: options.axis == .sequence,
                                  lifecycles: lifecycles)
        var layout = MarbleSVGLayout(model: model, axis: options.axis)
        return layout.draw(title: "Marble diagram of \(trace.header.processName)", appearance: options.appearance)
    }
}
