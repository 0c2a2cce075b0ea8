import LifelineLog
import Synchronization

/// The ids given to struct publishers between the begin and the end of their subscribe call.
///
/// A struct publisher has no identity, so the end event finds its id again through the
/// subscriber. Subscribe calls for one subscriber can nest, hence a stack per subscriber.
final class PendingPublishers: Sendable {
    private let pending = Mutex<[TraceObjectID: [TraceObjectID]]>([:])

    func begin(_ publisher: TraceObjectID, for subscriber: TraceObjectID) {
        pending.withLock { $0[subscriber, default: []].append(publisher) }
    }

    func end(for subscriber: TraceObjectID) -> TraceObjectID? {
        pending.withLock { pending in
            let publisher = pending[subscriber]?.popLast()
            if pending[subscriber]?.isEmpty == true { pending[subscriber] = nil }
            return publisher
        }
    }
}
