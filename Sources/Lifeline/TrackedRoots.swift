import Synchronization

/// The objects the user registered with `Lifeline.track(_:name:)`, held weakly: those of one
/// recording, or those tracked while none runs, which the next recording takes over.
///
/// A weak reference never extends a lifetime, so tracking changes nothing about when the
/// object dies.
///
/// Checking a weak reference makes a strong one for a moment, and if the program lets go of
/// the object meanwhile, letting go of that moment's reference runs the object's deinit, which
/// can re-enter Lifeline. So weak references are only ever checked outside the lock.
final class TrackedRoots: Sendable {
    /// One registered root.
    struct Root {
        let object: AnyObject
        let name: String
    }

    private struct Entry: @unchecked Sendable {
        let serial: UInt64
        // Only ever read as a weak reference, outside the lock.
        weak var object: AnyObject?
        /// The object's identity, compared under the lock.
        let key: ObjectIdentifier
        let name: String
    }

    private struct State {
        var entries: [Entry] = []
        var nextSerial: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Registers `object` under `name`; registering it again renames it.
    func track(_ object: AnyObject, name: String) {
        state.withLock { state in
            state.nextSerial += 1
            state.entries.append(Entry(serial: state.nextSerial, object: object, key: ObjectIdentifier(object), name: name))
        }
    }

    /// Forgets `object`, under every name it was registered with.
    func untrack(_ object: AnyObject) {
        let key = ObjectIdentifier(object)
        state.withLock { $0.entries.removeAll { $0.key == key } }
    }

    /// Hands every root over to `other`, in registration order, and forgets them here.
    func moveAll(to other: TrackedRoots) {
        let entries = state.withLock { state in
            defer { state.entries = [] }
            return state.entries
        }
        other.state.withLock { state in
            for entry in entries {
                state.nextSerial += 1
                state.entries.append(Entry(serial: state.nextSerial, object: entry.object, key: entry.key, name: entry.name))
            }
        }
    }

    /// Calls `body` with each living root once, under the name it was last registered with,
    /// in registration order; forgets the dead and the renamed.
    func forEachLiving(_ body: (Root) -> Void) {
        let entries = state.withLock { $0.entries }
        var living: [(serial: UInt64, root: Root)] = []
        var forgotten = Set<UInt64>()
        for entry in entries {
            guard let object = entry.object else {
                forgotten.insert(entry.serial)
                continue
            }
            if let earlier = living.firstIndex(where: { $0.root.object === object }) {
                forgotten.insert(living[earlier].serial)
                living[earlier] = (entry.serial, Root(object: object, name: entry.name))
            } else {
                living.append((entry.serial, Root(object: object, name: entry.name)))
            }
        }
        if !forgotten.isEmpty {
            state.withLock { $0.entries.removeAll { forgotten.contains($0.serial) } }
        }
        for (_, root) in living { body(root) }
    }
}
