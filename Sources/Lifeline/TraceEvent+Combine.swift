#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif
import LifelineLog

extension TraceDemand {
    /// The trace form of a Combine demand.
    init(_ demand: Subscribers.Demand) {
        self = demand.max.map(TraceDemand.max) ?? .unlimited
    }
}

extension Subscribers.Demand {
    /// The demand as a binary record holds it (`TraceDemand.encoded`): the count, or
    /// `UInt64.max` for unlimited. Every Combine demand has one (a count is never negative), so
    /// the delivery entry points take it without a ``TraceDemand`` or a test: through
    /// `TraceDemand`, 4 instructions a delivery more (callgrind, automatic mode).
    var recordEncoding: UInt64 {
        // Not `max.map`: in a debug build, the generic closure cost about 90 instructions a
        // value at each hop (callgrind, operator mode).
        if let max { UInt64(truncatingIfNeeded: max) } else { .max }
    }
}

extension TraceEvent.Completion {
    /// The trace form of a Combine completion; a failure keeps the error's description.
    init<Failure: Error>(_ completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished: self = .finished
        case .failure(let error): self = .failure(String(describing: error))
        }
    }
}
