import LifelineLog

/// Where the program made a pipeline, the same in every run of it: the call site of its end
/// (`TransferListModel.swift:63`), else its `.lifeline` label, else the short type of its end
/// subscriber (a log recorded without call sites), and its position among the pipelines of
/// that place, in the order of their first events.
public struct PipelineKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The call site or the quoted label.
    public let place: String
    /// The pipeline's position among those made at ``place``, from 1.
    public let position: Int

    /// `TransferListModel.swift:63`, or `TransferListModel.swift:63 (2nd)` after the first.
    public var description: String {
        position == 1 ? place : "\(place) (\(Pipeline.Repetition.ordinal(position)))"
    }

    public static func < (lhs: PipelineKey, rhs: PipelineKey) -> Bool {
        (lhs.place, lhs.position) < (rhs.place, rhs.position)
    }

    /// The key of each of `pipelines`, in their order.
    static func keys(of pipelines: TracePipelines, in lifecycles: TraceLifecycles) -> [(key: PipelineKey, pipeline: Pipeline)] {
        var made: [String: Int] = [:]
        return pipelines.pipelines.map { pipeline in
            let place = pipeline.sourceLocation ?? pipeline.label.map { "\"\($0)\"" }
                ?? lifecycles.trace.object(lifecycles.lifecycle(pipeline.end).subscriber)?.shortTypeName ?? "unknown"
            made[place, default: 0] += 1
            return (PipelineKey(place: place, position: made[place]!), pipeline)
        }
    }
}
