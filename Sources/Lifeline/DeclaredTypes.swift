import LifelineLog
import Synchronization

/// The `type` lines a recording has written (log format version 8 on): each object's type,
/// role and lifetime tracking are written once, and its declaration names them by number.
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
    }

    private let numbers = Mutex<[Key: UInt64]>([:])

    /// The number of the type line that declares `object`'s type, role and lifetime tracking;
    /// `write` writes the line the first time.
    func number(for object: TraceObject, writing write: (TraceObjectType) -> Void) -> UInt64 {
        let key = Key(
            typeName: object.typeName, shortTypeName: object.shortTypeName, role: object.role,
            lifetimeTracked: object.lifetimeTracked
        )
        return numbers.withLock { numbers in
            if let number = numbers[key] { return number }
            let number = UInt64(numbers.count + 1)
            write(TraceObjectType(of: object, id: number))
            numbers[key] = number
            return number
        }
    }
}
