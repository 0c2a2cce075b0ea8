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
/// `combineIdentifier`. A value keyed by an object's address (a struct subscriber whose
/// identifier forwards a class instance's, as OpenCombine's `PrefixUntilOutput` termination
/// does) stands for that object: its id is retired when an object at that address is found
/// dead, so a later object there never inherits it.
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
        /// Whether its death is recorded: `false` for an object a snapshot declared without
        /// lifetime tracking before the recorder met it in a call.
        var recordsDeath = true
    }

    /// A live tracked object, as heap inspection needs it.
    struct LiveEntry {
        let id: TraceObjectID
        let role: TraceObjectRole
    }

    /// A combine identifier is an immutable value; OpenCombine just doesn't mark it Sendable.
    private struct ValueKey: Hashable, @unchecked Sendable {
        let identifier: CombineIdentifier

        init(identifier: CombineIdentifier) {
            self.identifier = identifier
        }

        /// The key a value forwarding the identifier of the object at `key` has.
        init(forwarding key: ObjectIdentifier) {
            identifier = unsafeBitCast(UInt64(UInt(bitPattern: key)), to: CombineIdentifier.self)
        }

        /// The object address the identifier may be (`CombineIdentifier(object)` is one).
        var address: ObjectIdentifier {
            unsafeBitCast(UInt(truncatingIfNeeded: unsafeBitCast(identifier, to: UInt64.self)), to: ObjectIdentifier.self)
        }
    }

    private struct State {
        var nextID: UInt64 = 1
        var live: [ObjectIdentifier: LiveObject] = [:]
        var liveKeys: [TraceObjectID: ObjectIdentifier] = [:]
        var values: [ValueKey: TraceObjectID] = [:]
        /// Live class instances by the combine identifier they were identified with, so that a
        /// type-erased wrapper (`AnySubscriber`) is known as what it wraps.
        var objectKeys: [ValueKey: ObjectIdentifier] = [:]

        /// Forgets the live entry at `key`, which holds the object `id`, with the values that
        /// forwarded its address.
        mutating func forget(_ key: ObjectIdentifier, id: TraceObjectID) {
            if let valueKey = live[key]?.key, objectKeys[valueKey] == key { objectKeys[valueKey] = nil }
            live[key] = nil
            liveKeys[id] = nil
            values[ValueKey(forwarding: key)] = nil
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
    ///
    /// An object new to the registry that a snapshot already declared keeps that id:
    /// `declared` finds it, by address and type, and the object's death is then not recorded
    /// (its declaration says Lifeline does not track its lifetime).
    func identify(
        object: AnyObject, role: TraceObjectRole, combineIdentifier: CombineIdentifier? = nil,
        declared: (UInt) -> TraceObjectID? = { _ in nil }, declare: (TraceObjectID) -> TraceObject
    ) -> Identity {
        let key = ObjectIdentifier(object)
        let valueKey = combineIdentifier.map(ValueKey.init)
        let entry = LiveObject(object: object, id: TraceObjectID(0), role: role, aliveAtSeq: 0, key: valueKey)
        let (id, isNew, death) = state.withLock { state -> (TraceObjectID, Bool, Death?) in
            var death: Death?
            if let known = state.live[key] {
                if known.object != nil { return (known.id, false, nil) }
                if known.recordsDeath { death = Death(id: known.id, aliveAtSeq: known.aliveAtSeq) }
                state.forget(key, id: known.id)
            }
            let adopted = declared(UInt(bitPattern: key))
            let id = adopted ?? state.newID()
            var fresh = LiveObject(object: entry.object, id: id, role: role, aliveAtSeq: 0, key: valueKey)
            fresh.recordsDeath = adopted == nil
            state.live[key] = fresh
            state.liveKeys[id] = key
            if let valueKey { state.objectKeys[valueKey] = key }
            return (id, adopted == nil, death)
        }
        return Identity(id: id, declaration: isNew ? declare(id) : nil, death: death)
    }

    /// The id of a value-type subscriber or subscription, keyed by its combine identifier.
    ///
    /// When the identifier is the address of an object the registry knows and that object
    /// has died, the object's death is recorded and the value gets a new id: it stands for
    /// the object now at that address.
    func identify(value identifier: CombineIdentifier, declare: (TraceObjectID) -> TraceObject) -> Identity {
        let key = ValueKey(identifier: identifier)
        // The weak reference is checked outside the lock, on a copy (see ``liveAddresses()``).
        let forwarded = state.withLock { $0.live[key.address] }
        let forwardedIsDead = forwarded.map { $0.object == nil } ?? false
        let (id, isNew, death) = state.withLock { state -> (TraceObjectID, Bool, Death?) in
            var death: Death?
            if forwardedIsDead, let forwarded, let entry = state.live[key.address], entry.id == forwarded.id {
                if entry.recordsDeath { death = Death(id: entry.id, aliveAtSeq: entry.aliveAtSeq) }
                state.forget(key.address, id: entry.id)
            }
            if let id = state.values[key] { return (id, false, death) }
            let id = state.newID()
            state.values[key] = id
            return (id, true, death)
        }
        return Identity(id: id, declaration: isNew ? declare(id) : nil, death: death)
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
                if entry.recordsDeath { deaths.append(Death(id: id, aliveAtSeq: entry.aliveAtSeq)) }
                state.forget(key, id: id)
            }
            for (key, id) in alive where state.live[key]?.id == id {
                state.live[key]?.aliveAtSeq = seq
            }
            return deaths.sorted { $0.id < $1.id }
        }
    }
}
