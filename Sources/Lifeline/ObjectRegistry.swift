#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif
import CLifelineRuntime
import LifelineLog
import Synchronization

/// Gives every object the recorder sees a stable trace id, and notices when objects die.
///
/// Class instances are held by an ``ObjectHold``, which never extends a lifetime: the traced
/// program's objects die exactly when they would untraced. Without the Objective-C runtime the
/// hold is an unowned reference, which keeps the object's memory (so that no other object can
/// take its address while the registry knows it) and gives it no side table; a death is read
/// from the object's reference counts. An entry whose object has begun to deinitialize belongs
/// to a dead object: the id is retired, the hold let go, and an object that later reuses the
/// same address gets a new id. A dead object's memory (its instance, not what it held) stays
/// until a sweep reaches its entry: with N tracked objects, within ⌈N / ``sweepStep``⌉ calls
/// that end a subscribe, a handshake, a completion or a cancel, and at the latest when the
/// recording stops (``close()``). Value types have no lifetime; they are keyed by their
/// `combineIdentifier`. A value keyed by an object's address (a struct subscriber whose
/// identifier forwards a class instance's, as OpenCombine's `PrefixUntilOutput` termination
/// does) stands for that object: its id is retired when an object at that address is found
/// dead, so a later object there never inherits it.
///
/// The objects met in calls are also cached in the lock-free identity cache of
/// CLifelineRuntime (see `lifeline_identity_lookup`), which ``cachedID(of:metadata:)`` reads:
/// the recorder's hot path knows a subscriber or subscription it has met without a lock.
/// An entry is stored while the registry's hold on its object lives, and invalidated before
/// that hold goes.
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

    /// How the registry holds an object, shared by the copies of its entry (a sweep copies
    /// entries to check them outside the lock).
    ///
    /// It also keeps the last sequence number at which a sweep saw the object alive, so that a
    /// sweep marks the living without looking their entries up again.
    private final class Hold: @unchecked Sendable {
        #if canImport(ObjectiveC)
        /// A weak reference: an Objective-C object's memory is not the Swift runtime's to
        /// describe, so an unowned reference could not tell its death.
        weak var object: AnyObject?
        #else
        /// Never read: it keeps the object's memory, and so its address, until the registry
        /// lets go of the hold, without keeping the object alive. An unowned reference lives in
        /// the object's inline reference counts, so the object gets no side table and the traced
        /// program's own retains and releases of it stay on the runtime's fast path.
        unowned let object: AnyObject
        private let address: UnsafeRawPointer
        #endif
        let aliveAtSeq: Atomic<UInt64>

        init(_ object: AnyObject, aliveAt seq: UInt64) {
            self.object = object
            #if !canImport(ObjectiveC)
            address = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
            #endif
            aliveAtSeq = Atomic(seq)
        }

        /// Whether the object has not begun to deinitialize.
        var isAlive: Bool {
            #if canImport(ObjectiveC)
            object != nil
            #else
            // Reads the reference counts the hold keeps in memory; never retains the object.
            lifeline_object_is_deallocating(address) == 0
            #endif
        }

        /// What the identity cache stores for the object at `address` to know it by: a word
        /// that only the very object the entry was made for can match (see
        /// `lifeline_identity_store`).
        static func identityWord(of address: UnsafeRawPointer) -> UInt64 {
            #if canImport(ObjectiveC)
            // The weak reference gave the object a side table, whose address is in the object's
            // reference-count word while the reference lives.
            lifeline_identity_header_word(address)
            #else
            // The hold keeps the address the object's until the cache entry is invalidated.
            LIFELINE_IDENTITY_HELD
            #endif
        }

        /// How many of the object's weak and unowned references are the registry's.
        static let references = ObjectRegistry.LiveEntry.RecorderReferences(
            weak: holdsWeakly ? 1 : 0, unowned: holdsWeakly ? 0 : 1
        )

        private static var holdsWeakly: Bool {
            #if canImport(ObjectiveC)
            true
            #else
            false
            #endif
        }
    }

    private struct LiveObject: @unchecked Sendable {
        let hold: Hold
        let id: TraceObjectID
        /// The role the object was declared with, for snapshots' node kinds.
        let role: TraceObjectRole
        /// The combine identifier it was identified with, when it had one.
        let key: ValueKey?
        /// Whether its death is recorded: `false` for an object a snapshot declared without
        /// lifetime tracking before the recorder met it in a call.
        var recordsDeath = true

        /// Whether the object has not begun to deinitialize.
        var isAlive: Bool { hold.isAlive }

        /// The last sequence number at which the object was seen alive: by a sweep, or when
        /// it was identified.
        var aliveAtSeq: UInt64 { hold.aliveAtSeq.load(ordering: .relaxed) }
    }

    /// A live tracked object, as heap inspection needs it.
    struct LiveEntry {
        /// How many of an object's weak and unowned references are the recorder's own.
        struct RecorderReferences {
            let weak: Int
            let unowned: Int
        }

        let id: TraceObjectID
        let role: TraceObjectRole
        /// The references the registry's hold on the object adds to its counts.
        var recorderReferences: RecorderReferences { Hold.references }
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
        /// The live entries in the order a sweep visits them, round after round. An entry
        /// forgotten meanwhile stays until the sweep meets it (its id no longer matches).
        var sweepOrder: [(key: ObjectIdentifier, id: TraceObjectID)] = []
        var sweepCursor = 0
        /// Whether the recording stopped: the registry then holds nothing.
        var closed = false

        /// Forgets the live entry at `key`, which holds the object `id`, with the values that
        /// forwarded its address.
        mutating func forget(_ key: ObjectIdentifier, id: TraceObjectID) {
            lifeline_identity_forget(UnsafeRawPointer(bitPattern: UInt(bitPattern: key)))
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
    /// The recording this registry belongs to, which keys its entries in the identity cache.
    private let generation: UInt64

    init(generation: UInt64) {
        self.generation = generation
        // The threads' memos of the identity cache hold ids of earlier recordings.
        lifeline_identity_advance()
    }

    /// The id of the live object at `address` whose static type has the class metadata
    /// `metadata`, when the identity cache holds it; `nil` sends the caller to
    /// ``identify(object:role:combineIdentifier:metadata:declared:declare:)``. Lock-free.
    ///
    /// The caller keeps the object alive. `metadata` is what proves `address` is an object:
    /// entries are only made for class metadata, so a value of another type never matches.
    @inline(__always)
    func cachedID(of address: UnsafeRawPointer?, metadata: UnsafeRawPointer) -> TraceObjectID? {
        let id = RecordPath.identity(generation: generation, address: address, metadata: metadata)
        return id == 0 ? nil : TraceObjectID(id)
    }

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
    ///
    /// `metadata`, when given, is the class metadata of the static type the caller saw the
    /// object as: the object is then cached under it for ``cachedID(of:metadata:)``.
    /// `seq` is the last sequence number recorded: the caller holds the object, so it is
    /// alive after that event, and a death found later is bounded by it rather than by 0
    /// when no sweep saw the object first.
    func identify(
        object: AnyObject, role: TraceObjectRole, combineIdentifier: CombineIdentifier? = nil,
        metadata: UnsafeRawPointer? = nil, seenAliveAt seq: UInt64 = 0,
        declared: (UInt) -> TraceObjectID? = { _ in nil }, declare: (TraceObjectID) -> TraceObject
    ) -> Identity {
        let address = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        let generation = generation
        let key = ObjectIdentifier(object)
        let valueKey = combineIdentifier.map(ValueKey.init)
        let hold = Hold(object, aliveAt: seq)
        let (id, isNew, death) = state.withLock { state -> (TraceObjectID, Bool, Death?) in
            // A call still running when the recording stopped records nothing more.
            if state.closed { return (state.newID(), false, nil) }
            var death: Death?
            if let known = state.live[key] {
                if known.isAlive {
                    known.hold.aliveAtSeq.max(seq, ordering: .relaxed)
                    if let metadata { Self.cache(address, metadata, known.id, generation) }
                    return (known.id, false, nil)
                }
                if known.recordsDeath { death = Death(id: known.id, aliveAtSeq: known.aliveAtSeq) }
                state.forget(key, id: known.id)
            }
            let adopted = declared(UInt(bitPattern: key))
            let id = adopted ?? state.newID()
            var fresh = LiveObject(hold: hold, id: id, role: role, key: valueKey)
            fresh.recordsDeath = adopted == nil
            state.live[key] = fresh
            state.liveKeys[id] = key
            state.sweepOrder.append((key, id))
            if let valueKey { state.objectKeys[valueKey] = key }
            if let metadata { Self.cache(address, metadata, id, generation) }
            return (id, adopted == nil, death)
        }
        return Identity(id: id, declaration: isNew ? declare(id) : nil, death: death)
    }

    /// The id of the value of the type with metadata `metadata` identified by `identifier`,
    /// when the identity cache holds it; `nil` sends the caller to
    /// ``identify(value:metadata:declare:)``. Lock-free.
    @inline(__always)
    func cachedID(ofValue identifier: CombineIdentifier, metadata: UnsafeRawPointer) -> TraceObjectID? {
        let id = RecordPath.identity(generation: generation, identifier: unsafeBitCast(identifier, to: UInt64.self), metadata: metadata)
        return id == 0 ? nil : TraceObjectID(id)
    }

    /// Stores `id` in the identity cache for the object at `address`, which the registry holds.
    /// Only under the lock.
    private static func cache(_ address: UnsafeRawPointer, _ metadata: UnsafeRawPointer, _ id: TraceObjectID, _ generation: UInt64) {
        lifeline_identity_store(generation, address, metadata, Hold.identityWord(of: address), id.rawValue)
    }

    /// The id of a value-type subscriber or subscription, keyed by its combine identifier.
    ///
    /// When the identifier is the address of an object the registry knows and that object
    /// has died, the object's death is recorded and the value gets a new id: it stands for
    /// the object now at that address.
    ///
    /// `metadata`, when given, is the value's type metadata: the value is then cached under it
    /// for ``cachedID(ofValue:metadata:)``, unless an object the registry knows lives at the
    /// address the identifier may be (then each call checks that object, as above).
    func identify(
        value identifier: CombineIdentifier, metadata: UnsafeRawPointer? = nil, declare: (TraceObjectID) -> TraceObject
    ) -> Identity {
        let key = ValueKey(identifier: identifier)
        let generation = generation
        // The hold is checked outside the lock, on a copy (see ``liveAddresses()``).
        let forwarded = state.withLock { $0.live[key.address] }
        let forwardedIsDead = forwarded.map { !$0.isAlive } ?? false
        let (id, isNew, death) = state.withLock { state -> (TraceObjectID, Bool, Death?) in
            var death: Death?
            if forwardedIsDead, let forwarded, let entry = state.live[key.address], entry.id == forwarded.id {
                if entry.recordsDeath { death = Death(id: entry.id, aliveAtSeq: entry.aliveAtSeq) }
                state.forget(key.address, id: entry.id)
            }
            let known = state.values[key]
            let id = known ?? state.newID()
            state.values[key] = id
            if let metadata, state.live[key.address] == nil {
                lifeline_identity_store_value(generation, unsafeBitCast(identifier, to: UInt64.self), metadata, id.rawValue)
            }
            return (id, known == nil, death)
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
        // The hold is checked outside the lock (see ``liveAddresses()``).
        if let object = found.object, object.isAlive { return object.id }
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

    /// How many entries the registry keeps, in all its tables: as many as the objects it holds
    /// (alive, or dead and not yet swept) and the values it has identified, not as the objects
    /// it has ever seen.
    var entryCount: Int {
        state.withLock { state in
            state.live.count + state.liveKeys.count + state.values.count + state.objectKeys.count + state.sweepOrder.count
        }
    }

    /// Lets go of every object, once the recording has stopped and its log is closed: the memory
    /// of the dead ones the sweeps had not reached yet is freed, and nothing the program makes
    /// later is held. An object identified after this gets an id that nothing declares.
    func close() {
        state.withLock { state in
            state.closed = true
            for (key, entry) in state.live { state.forget(key, id: entry.id) }
            state.sweepOrder = []
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
    /// An object that has begun to deinitialize is not alive, even before a sweep finds it
    /// dead: its memory may still be held, but its fields are being torn down.
    ///
    /// Checking a weak reference (where the hold is one) makes a strong one for a moment; if
    /// the program let go of the object meanwhile, letting go of that reference runs the
    /// object's deinit, which can re-enter the recorder. So the holds are checked outside the
    /// lock, on a copy.
    func liveAddresses() -> [UInt: LiveEntry] {
        let live = state.withLock { $0.live }
        var addresses: [UInt: LiveEntry] = [:]
        for (key, entry) in live where entry.isAlive {
            addresses[UInt(bitPattern: key)] = LiveEntry(id: entry.id, role: entry.role)
        }
        return addresses
    }

    /// The id of the live object the registry knows at `address`, if any: a snapshot that
    /// reaches an object it was not told about asks, as the recorder may have met the object
    /// on another thread (a pipeline another queue subscribes) since the snapshot began.
    ///
    /// The hold is checked outside the lock (see ``liveAddresses()``).
    func liveID(at address: UInt) -> TraceObjectID? {
        let key = unsafeBitCast(address, to: ObjectIdentifier.self)
        guard let entry = state.withLock({ $0.live[key] }), entry.isAlive else { return nil }
        return entry.id
    }

    /// The address and entry of each of `ids` that is a tracked object still alive, as
    /// ``liveAddresses()`` gives them, for a snapshot that checks only these objects.
    func liveAddresses(of ids: some Sequence<TraceObjectID>) -> [TraceObjectID: (address: UInt, entry: LiveEntry)] {
        let found = state.withLock { state in
            ids.compactMap { id in state.liveKeys[id].flatMap { key in state.live[key].map { (key, $0) } } }
        }
        var addresses: [TraceObjectID: (address: UInt, entry: LiveEntry)] = [:]
        for (key, entry) in found where entry.isAlive {
            addresses[entry.id] = (UInt(bitPattern: key), LiveEntry(id: entry.id, role: entry.role))
        }
        return addresses
    }

    /// How many tracked objects a sweep after a call checks at most: a program with more live
    /// objects has them checked in turns, so that a call costs the same however many objects
    /// live. ``sweepAll(aliveAt:)`` checks them all.
    static let sweepStep = 16

    /// Checks the next ``sweepStep`` tracked objects in turn: the dead are retired and returned,
    /// the living are marked alive at `seq`. An object not checked at `seq` keeps the last
    /// sequence number it was seen alive at, which stays a true bound.
    func sweep(aliveAt seq: UInt64) -> [Death] {
        sweep(aliveAt: seq, checkingAtMost: Self.sweepStep)
    }

    /// Checks every tracked object: the dead are retired and returned, the living are marked
    /// alive at `seq`.
    func sweepAll(aliveAt seq: UInt64) -> [Death] {
        sweep(aliveAt: seq, checkingAtMost: nil)
    }

    /// The holds are checked outside the lock, on copies (see ``liveAddresses()``);
    /// an entry is then changed only if it still holds the id that was checked.
    private func sweep(aliveAt seq: UInt64, checkingAtMost limit: Int?) -> [Death] {
        let batch = state.withLock { state in
            guard let limit else { return state.live.map { (key: $0.key, id: $0.value.id, entry: $0.value) } }
            var batch: [(key: ObjectIdentifier, id: TraceObjectID, entry: LiveObject)] = []
            batch.reserveCapacity(limit)
            // Each entry once at most: with fewer live objects than the limit, a sweep checks
            // each of them once, as a full sweep does.
            var visits = min(limit, state.sweepOrder.count)
            while visits > 0, !state.sweepOrder.isEmpty {
                visits -= 1
                if state.sweepCursor >= state.sweepOrder.count { state.sweepCursor = 0 }
                let (key, id) = state.sweepOrder[state.sweepCursor]
                guard let entry = state.live[key], entry.id == id else {
                    // Forgotten since: drop it from the round (the last one takes its place).
                    state.sweepOrder.swapAt(state.sweepCursor, state.sweepOrder.count - 1)
                    state.sweepOrder.removeLast()
                    continue
                }
                batch.append((key, id, entry))
                state.sweepCursor += 1
            }
            return batch
        }
        var dead: [(key: ObjectIdentifier, id: TraceObjectID)] = []
        for (key, id, entry) in batch {
            if !entry.isAlive {
                dead.append((key, id))
            } else {
                // Marking an entry forgotten meanwhile is harmless: nothing reads it any more.
                entry.hold.aliveAtSeq.max(seq, ordering: .relaxed)
            }
        }
        guard !dead.isEmpty else { return [] }
        return state.withLock { state in
            var deaths: [Death] = []
            for (key, id) in dead {
                guard let entry = state.live[key], entry.id == id else { continue }
                if entry.recordsDeath { deaths.append(Death(id: id, aliveAtSeq: entry.aliveAtSeq)) }
                state.forget(key, id: id)
            }
            return deaths.sorted { $0.id < $1.id }
        }
    }
}
