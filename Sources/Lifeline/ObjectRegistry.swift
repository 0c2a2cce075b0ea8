#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif
import LifelineLog
import Synchronization

/// Gives every object the recorder sees a stable trace id, and notices when objects die.
///
/// Class instances are held weakly: a weak reference never extends a lifetime, so the traced
/// program's objects die exactly when they would untraced. An entry whose weak reference has
/// gone nil belongs to a dead object; the id is retired, and an object that later reuses the
/// same address gets a new id. Value types have no lifetime; they are keyed by their
/// `combineIdentifier`.
final class ObjectRegistry: Sendable {
    /// An object found dead, and the last sequence number at which it was seen alive.
    struct Death {
        let id: TraceObjectID
        let aliveAtSeq: UInt64
    }

    /// The result of identifying an object.
    struct Identity {
        let id: TraceObjectID
        /// The declaration to write, when the object is seen for the first time.
        let declaration: TraceObject?
        /// An earlier object at the same address, found dead.
        let death: Death?
    }

    private struct LiveObject: @unchecked Sendable {
        // Only ever read as a weak reference under the registry's lock.
        weak var object: AnyObject?
        let id: TraceObjectID
        /// The role the object was declared with, for snapshots' node kinds.
        let role: TraceObjectRole
        var aliveAtSeq: UInt64
        /// The combine identifier it was identified with, when it had one.
        let key: ValueKey?
    }

    /// A live tracked object, as heap inspection needs it.
    struct LiveEntry {
        let id: TraceObjectID
        let role: TraceObjectRole
    }

    /// A combine identifier is an immutable value; OpenCombine just doesn't mark it Sendable.
    private struct ValueKey: Hashable, @unchecked Sendable {
        let identifier: CombineIdentifier
    }

    private struct State {
        var nextID: UInt64 = 1
        var live: [ObjectIdentifier: LiveObject] = [:]
        var liveKeys: [TraceObjectID: ObjectIdentifier] = [:]
        var values: [ValueKey: TraceObjectID] = [:]
        /// Live class instances by the combine identifier they were identified with, so that a
        /// type-erased wrapper (`AnySubscriber`) is known as what it wraps.
        var objectKeys: [ValueKey: ObjectIdentifier] = [:]

        /// Forgets the live entry at `key`, which holds the object `id`.
        mutating func forget(_ key: ObjectIdentifier, id: TraceObjectID) {
            if let valueKey = live[key]?.key, objectKeys[valueKey] == key { objectKeys[valueKey] = nil }
            live[key] = nil
            liveKeys[id] = nil
        }

        mutating func newID() -> TraceObjectID {
            defer { nextID += 1 }
            return TraceObjectID(nextID)
        }
    }

    private let state = Mutex(State())

    /// A fresh id for something with no identity of its own (a struct publisher, one
    /// subscribe at a time).
    func freshID() -> TraceObjectID {
        state.withLock { $0.newID() }
    }

    /// The id of a class instance. `declare` builds the declaration the first time.
    /// `combineIdentifier` is the subscriber's or subscription's identifier, when it has one.
    func identify(
        object: AnyObject, role: TraceObjectRole, combineIdentifier: CombineIdentifier? = nil,
        declare: (TraceObjectID) -> TraceObject
    ) -> Identity {
        let key = ObjectIdentifier(object)
        let valueKey = combineIdentifier.map(ValueKey.init)
        let entry = LiveObject(object: object, id: TraceObjectID(0), role: role, aliveAtSeq: 0, key: valueKey)
        let (id, isNew, death) = state.withLock { state -> (TraceObjectID, Bool, Death?) in
            var death: Death?
            if let known = state.live[key] {
                if known.object != nil { return (known.id, false, nil) }
                death = Death(id: known.id, aliveAtSeq: known.aliveAtSeq)
                state.forget(key, id: known.id)
            }
            let id = state.newID()
            state.live[key] = LiveObject(object: entry.object, id: id, role: role, aliveAtSeq: 0, key: valueKey)
            state.liveKeys[id] = key
            if let valueKey { state.objectKeys[valueKey] = key }
            return (id, true, death)
        }
        return Identity(id: id, declaration: isNew ? declare(id) : nil, death: death)
    }

    /// The id of a value-type subscriber or subscription, keyed by its combine identifier.
    func identify(value identifier: CombineIdentifier, declare: (TraceObjectID) -> TraceObject) -> Identity {
        let key = ValueKey(identifier: identifier)
        let (id, isNew) = state.withLock { state -> (TraceObjectID, Bool) in
            if let id = state.values[key] { return (id, false) }
            let id = state.newID()
            state.values[key] = id
            return (id, true)
        }
        return Identity(id: id, declaration: isNew ? declare(id) : nil, death: nil)
    }

    /// The id of the live object or value identified with `identifier`, if any: what a
    /// type-erased subscriber (`AnySubscriber`, which takes over the identifier of the
    /// subscriber it wraps) stands for.
    func wrappedID(for identifier: CombineIdentifier) -> TraceObjectID? {
        let key = ValueKey(identifier: identifier)
        let found = state.withLock { state -> (value: TraceObjectID?, object: LiveObject?) in
            (state.values[key], state.objectKeys[key].flatMap { state.live[$0] })
        }
        // The weak reference is checked outside the lock (see ``liveAddresses()``).
        if let object = found.object, object.object != nil { return object.id }
        return found.value
    }

    /// The id of `object` when the registry knows it and it is alive, without declaring it.
    func knownID(of object: AnyObject) -> TraceObjectID? {
        let key = ObjectIdentifier(object)
        return state.withLock { state in
            // `object` is alive (the caller holds it), so an entry at its address is its own.
            state.live[key]?.id
        }
    }

    /// Forgets `id` because its death was seen exactly. Returns `false` when a check had
    /// already found it dead, so that no death is recorded twice.
    func retire(_ id: TraceObjectID) -> Bool {
        state.withLock { state in
            guard let key = state.liveKeys[id] else { return false }
            state.forget(key, id: id)
            return true
        }
    }

    /// The address and id of every tracked object still alive, for heap inspection. An
    /// address is only good until its object dies.
    ///
    /// Checking a weak reference makes a strong one for a moment; if the program let go of
    /// the object meanwhile, letting go of that reference runs the object's deinit, which can
    /// re-enter the recorder. So the references are checked outside the lock, on a copy.
    func liveAddresses() -> [UInt: LiveEntry] {
        let live = state.withLock { $0.live }
        var addresses: [UInt: LiveEntry] = [:]
        for (key, entry) in live where entry.object != nil {
            addresses[UInt(bitPattern: key)] = LiveEntry(id: entry.id, role: entry.role)
        }
        return addresses
    }

    /// Checks every tracked object: the dead are retired and returned, the living are marked
    /// alive at `seq`.
    ///
    /// The weak references are checked outside the lock, on a copy (see ``liveAddresses()``);
    /// an entry is then changed only if it still holds the id that was checked.
    func sweep(aliveAt seq: UInt64) -> [Death] {
        let live = state.withLock { $0.live }
        var dead: [(key: ObjectIdentifier, id: TraceObjectID)] = []
        var alive: [(key: ObjectIdentifier, id: TraceObjectID)] = []
        for (key, entry) in live {
            if entry.object == nil {
                dead.append((key, entry.id))
            } else {
                alive.append((key, entry.id))
            }
        }
        return state.withLock { state in
            var deaths: [Death] = []
            for (key, id) in dead {
                guard let entry = state.live[key], entry.id == id else { continue }
                deaths.append(Death(id: id, aliveAtSeq: entry.aliveAtSeq))
                state.forget(key, id: id)
            }
            for (key, id) in alive where state.live[key]?.id == id {
                state.live[key]?.aliveAtSeq = seq
            }
            return deaths.sorted { $0.id < $1.id }
        }
    }
}
