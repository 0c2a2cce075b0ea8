import LifelineAnalysis
import LifelineLog

extension SequenceModel {
    /// The model every sequence format draws for `options`: with each object in its own lane,
    /// or, when `options.collapse` asks for it (always, or when the SVG would not fit the
    /// page otherwise), with each pipeline's operators folded into one lane.
    static func fitted(_ trace: Trace, diagnoses: [Diagnosis], options: SequenceDiagramOptions) -> SequenceModel {
        let plain = SequenceModel(trace: trace, diagnoses: diagnoses, folding: options.folding,
                                  collapsing: options.collapse == .operators, findingNumbers: options.findingNumbers)
        guard options.collapse == .auto, SequenceSVGLayout.lanesWidth(of: plain, packing: SequenceSVGLayout.tightestPacking) > options.pageWidth else {
            return plain
        }
        return SequenceModel(trace: trace, diagnoses: diagnoses, folding: options.folding, collapsing: true,
                             findingNumbers: options.findingNumbers)
    }
}
