import LifelineLog
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// What the proxies of one `.lifeline(_:)` hop share: the session they record to, and the
/// hop's label and source location, stamped on every object they declare.
struct LifelineHop: Sendable {
    let session: RecordingSession
    let label: String
    let sourceLocation: TraceSourceLocation

    func identify(_ object: Any, role: TraceObjectRole, key: CombineIdentifier? = nil) -> TraceObjectID {
        session.identify(object, role: role, key: key, label: label, sourceLocation: sourceLocation)
    }
}
