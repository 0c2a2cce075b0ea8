import LifelineLog

/// One thing a repeated scenario left more of with each run (``LifecycleGrowthRule``): the
/// pipelines one place made, or the objects of one type.
struct GrowingThing {
    /// What grew, as a finding lists it: `pipelines made at QuoteModel.swift:26`, `QuoteModel
    /// objects`.
    let name: String
    /// What the counts are: `still subscribed`, `alive`.
    let counted: String
    /// How many there were after each run.
    let series: GrowthSeries
    /// The index of the run from which each run left more of it than the one before.
    let start: Int
    /// The first object left since the growth began: for pipelines, the subscriber of the
    /// first one still running.
    let representative: TraceObjectID
    /// Every object of it left since the growth began and alive at the last count.
    let leftBehind: Set<TraceObjectID>
    /// The events that show it: the subscribe calls of the pipelines left behind, or the
    /// events after which the runs were counted.
    let evidence: [UInt64]
    /// For pipelines, the last hop of the first one left behind.
    let hop: Hop?
    /// Whether it is pipelines made at a place in the program, which a finding names first.
    let isPlacedPipelines: Bool
    /// Whether it is objects of a type the program defines (not Combine's, nor a system
    /// library's).
    let isProgramType: Bool
    /// What kept ``representative`` alive in the last run's snapshot; `.unknown` until
    /// ``LifecycleGrowthRule`` asks the snapshot.
    var explanation = AliveExplanation.unknown

    /// The objects whose references ``explanation`` goes through: the root or the first holder,
    /// each holder on the path, and every object of the loop it hangs from.
    var holders: Set<TraceObjectID> {
        switch explanation {
        case .heldByRoot(let root, let path): Set([root] + path.map(\.from))
        case .unheld(_, let path): Set(path.map(\.from))
        case .heldByCycle(let cycle, let path): Set(cycle.objects + path.map(\.from))
        case .unknown, .deallocated, .deallocatedBefore: []
        }
    }

    /// `pipelines made at QuoteModel.swift:26 (still subscribed after each run: 1, 2, 3, 4, 5)`,
    /// with the run the growth began from when it differs from `groupStart`.
    func phrase(groupStart: Int) -> String {
        let from = start == groupStart ? "" : ", more from run \(start + 1) on"
        return "\(name) (\(counted) after each run: \(series.listed)\(from))"
    }
}
