import Synchronization

/// The objects the user registered with `Lifeline.track(_:name:)`, held weakly.
///
/// Roots outlive recordings: an object tracked before `start` is a root of every snapshot
/// taken while it lives. A weak reference never extends a lifetime, so tracking changes
/// nothing about when the object dies.
final class TrackedRoots: Sendable {
    /// One registered root.
    struct Root {
        let object: AnyObject
        let name: String
    }

    private struct Entry: @unchecked Sendable {
        // Only ever read as a weak reference under the lock.
        weak var object: AnyObject?
        let name: String
    }

    private let entries = Mutex<[Entry]>([])

    /// Registers `object` under `name`; registering it again renames it.
    func track(_ object: AnyObject, name: String) {
        entries.withLock { entries in
            entries.removeAll { $0.object == nil || $0.object === object }
            entries.append(Entry(object: object, name: name))
        }
    }

    /// Calls `body` with the living roots, in registration order; forgets the dead.
    func withLiving<Result>(_ body: ([Root]) -> Result) -> Result {
        let living = entries.withLock { entries -> [Root] in
            entries.removeAll { $0.object == nil }
            return entries.compactMap { entry in entry.object.map { Root(object: $0, name: entry.name) } }
        }
        return body(living)
    }
}
