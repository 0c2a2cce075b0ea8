import LifelineAnalysis
import LifelineLog

extension SequenceModel {
    /// The model every sequence format draws for `options`: with each object in its own lane,
    /// or, when `options.collapse` asks for it (always, or when the SVG would not fit the
    /// page otherwise), with each pipeline's operators folded into one lane; for a log that
    /// ended without its end record, with what each pipeline still open waits on.
    ///
    /// `lifecycles`, the lifecycles of `trace` when the caller has them, are rebuilt otherwise;
    /// both models share them and one grouping of repeated pipelines.
    static func fitted(
        _ trace: Trace, diagnoses: [Diagnosis], options: SequenceDiagramOptions, lifecycles: TraceLifecycles? = nil
    ) -> SequenceModel {
        // A log that ended without its end record needs them too, for what its open pipelines wait on.
        let lifecycles = options.folding || trace.damage.contains(.notClosed) ? lifecycles ?? TraceLifecycles(trace) : lifecycles
        let repeated = options.folding ? lifecycles.map { RepeatedPipelines($0, diagnoses: diagnoses) } : nil
        // What each pipeline still open at the end of an unfinished log waits on, read from the whole trace.
        let waits = lifecycles.map(PipelineWait.all) ?? []
        func model(collapsing: Bool) -> SequenceModel {
            SequenceModel(trace: trace, repeated: repeated, diagnoses: diagnoses, collapsing: collapsing, foldingInterleaved: true,
                          findingNumbers: options.findingNumbers, lifecycles: lifecycles, waits: waits)
        }
        // Lanes too many to fit even at their narrowest need no uncollapsed model to tell.
        if options.collapse == .auto, SequenceSVGLayout.narrowestLanesWidth(
            laneCount: uncollapsedLaneCount(of: trace, repeated: repeated, diagnoses: diagnoses)) > options.pageWidth {
            return model(collapsing: true)
        }
        let plain = model(collapsing: options.collapse == .operators)
        // Operators are folded rather than every object's heading cut short.
        guard options.collapse == .auto, SequenceSVGLayout.lanesWidth(of: plain, packing: SequenceSVGLayout.readablePacking) > options.pageWidth else {
            return plain
        }
        return model(collapsing: true)
    }
}
