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

extension TraceEvent.Completion {
    /// The trace form of a Combine completion; a failure keeps the error's description.
    init<Failure: Error>(_ completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished: self = .finished
        case .failure(let error): self = .failure(String(describing: error))
        }
    }
}
