import LifelineHeap
import LifelineLog

extension TraceSnapshot.Edge {
    /// The edge the log shows for `reference`, which heap inspection found, from the object
    /// named `from` to the one named `to`. A reference held through a closure names the
    /// closure's call site, which `closureSite` gives for the closure's function.
    init(_ reference: HeapGraph.Reference, from: TraceObjectID, to: TraceObjectID, closureSite: (UInt) -> UInt64?) {
        let ownership: TraceSnapshot.Ownership = switch reference.ownership {
        case .strong: .strong
        case .weak: .weak
        case .unowned: .unowned
        case .unownedUnsafe: .unownedUnsafe
        }
        self.init(
            from: from, to: to, field: reference.path, ownership: ownership,
            closureSite: reference.closureFunction == 0 ? nil : closureSite(reference.closureFunction)
        )
    }
}
