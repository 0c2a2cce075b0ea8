import LifelineLog
import Synchronization

/// The `type` lines a recording has written (log format version 8 on): each object's type,
/// role, lifetime tracking and `.lifeline` hop are written once, and its declaration names them
/// by number.
///
/// A type line is written under the lock, before its number is handed out: an object line that
/// names the number is written after it, so only a kill between the two (or a cut) loses a
/// type an object line names.
final class DeclaredTypes: Sendable {
    /// What the objects of one type line share.
    private struct Key: Hashable {
        let typeName: String
        let shortTypeName: String
        let role: TraceObjectRole
        let lifetimeTracked: Bool
        let label: String?
        let sourceLocation: TraceSourceLocation?
    }

    private let types = Mutex<[Key: TraceObjectType]>([:])

    /// The type line that declares `object`'s type, role, lifetime tracking and hop; `write`
    /// writes it the first time.
    func type(of object: TraceObject, writing write: (TraceObjectType) -> Void) -> TraceObjectType {
        let key = Key(
            typeName: object.typeName, shortTypeName: object.shortTypeName, role: object.role,
            lifetimeTracked: object.lifetimeTracked, label: object.label, sourceLocation: object.sourceLocation
        )
        return types.withLock { types in
            if let type = types[key] { return type }
            let type = TraceObjectType(of: object, id: UInt64(types.count + 1))
            write(type)
            types[key] = type
            return type
        }
    }
}
