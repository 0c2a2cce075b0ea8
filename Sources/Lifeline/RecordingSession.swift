#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif
import CLifelineRuntime
import Foundation
import LifelineLog
import Synchronization

/// One recording, from start to stop: the log file, the sequence counter, the clock origin,
/// the object registry and the thread and queue declarations.
///
/// ``record(_:_:callSite:delivery:)`` is the hot path, the entry point of `lifeline_record` for
/// the event's fields, inlined from the C header, for an event without text: an atomic add for
/// the sequence number, one read of the time-stamp counter (of CLOCK_MONOTONIC where the counter is not
/// invariant), the thread's own counter of unfinished calls, its id from thread-local storage and
/// its queue from libdispatch's thread data (compared with the last event's), and a binary
/// record built in registers and stored into the thread's own chunk of the mapped log (a JSON
/// line is copied with a reservation of its own). No lock, no system call, no heap allocation
/// and no other shared atomic, except the first time a thread or queue is seen and once per chunk
/// (4 KiB) of records. Stopping stops the numbering first, so that a thread either numbers and
/// writes its event before the log closes or records nothing.
final class RecordingSession: Sendable {
    let options: RecordingOptions
    let registry: ObjectRegistry
    let snapshots = SnapshotRecorder()
    /// The roots registered with `Lifeline.track(_:name:)` for this recording.
    let roots = TrackedRoots()
    /// Where the program made each pipeline and cancelled each subscription.
    let callSites: CallSiteRecorder
    let path: String

    private let writer: TraceFileWriter
    /// The types the log has declared.
    private let types = DeclaredTypes()
    /// The writer's sequence counter and ids, which `lifeline_record` reads.
    nonisolated(unsafe) private let log: UnsafeMutablePointer<lifeline_log>
    private let generation: UInt64
    private let clockOrigin: UInt64
    /// Whether events are written as binary records (log format version 9).
    private let writesRecords: Bool
    /// Whether event times are time-stamp counter readings, which the reader converts.
    private let readsTimeStampCounter: Bool
    private let snapshotsEveryCall: Bool
    /// Whether call sites are recorded, and so the scopes they need (`RecordingOptions.callSites`).
    private let capturesCallSites: Bool
    /// Whether events without text are recorded by `lifeline_record` (binary records, no
    /// snapshot at every call).
    private let recordsFields: Bool
    /// Whether a value's delivery without description is recorded by the delivery entry points
    /// (``recordDeliveryBegin(to:)``, ``leaveDeliveryScope()``,
    /// ``recordDeliveryEnd(of:returnedDemand:leavingScope:)``): values are not described, events are
    /// binary records (`recordsFields`) and call sites are on, so the delivery's scope holds its
    /// subscriber. One flag for the hook's and the proxies' deliveries to test: testing the three
    /// on every event cost 21 instructions a value more (callgrind, automatic mode).
    let recordsDeliveriesDirectly: Bool
    private let contexts = Mutex(ExecutionContexts())
    /// `true` once the log is closing: hang records are written one at a time, and none after
    /// ``finish()`` began.
    private let hangRecords = Mutex(false)
    /// The watchdog and `SIGQUIT`'s thread, once ``watchForHangs()`` started it.
    private let hangWatch = Mutex<HangWatch?>(nil)

    private static let generations = Atomic<UInt64>(1)

    private struct ExecutionContexts {
        var queueIDs: [String: UInt32] = [:]
        var unnamedThreads = 0
        /// Each adopted thread's count of calls it began and did not end (its begin events
        /// minus its end events), which only that thread writes: the counters' addresses.
        var openCallCounters: [UInt] = []
    }

    init(path: String, options: RecordingOptions) throws(TraceWriteError) {
        self.path = path
        self.options = options
        generation = Self.generations.add(1, ordering: .relaxed).newValue
        registry = ObjectRegistry(generation: generation)
        callSites = CallSiteRecorder(generation: generation, capturing: options.callSites)
        writesRecords = options.logFormat == .binary
        readsTimeStampCounter = writesRecords && lifeline_tsc_is_invariant() != 0
        snapshotsEveryCall = options.snapshots == .everyCall
        capturesCallSites = options.callSites
        let origin = lifeline_monotonic_ns()
        clockOrigin = origin
        recordsFields = writesRecords && !snapshotsEveryCall
        recordsDeliveriesDirectly = recordsFields && options.callSites && options.valueDescriptionLimit == nil
        let header = TraceHeader(
            version: writesRecords ? TraceHeader.currentBinaryVersion : TraceHeader.jsonLinesVersion,
            processID: lifeline_process_id(), processName: ProcessInfo.processInfo.processName,
            startedAt: ISO8601DateFormatter().string(from: Date()), clockOrigin: origin,
            valueDescriptionLimit: options.valueDescriptionLimit,
            ticks: readsTimeStampCounter ? Self.measureTimeStampCounter(origin: origin) : nil
        )
        var clock: (@Sendable () -> (tsc: UInt64, time: UInt64))?
        if readsTimeStampCounter { clock = { @Sendable in Self.readClocks(origin: origin) } }
        writer = try TraceFileWriter(path: path, header: header, capacity: options.logCapacity, clock: clock)
        log = writer.log
        log.pointee.generation = generation
        log.pointee.clock_origin = readsTimeStampCounter ? UInt64.max : origin
    }

    deinit {
        contexts.withLock { $0.openCallCounters.forEach { UnsafeMutablePointer<Int64>(bitPattern: $0)?.deallocate() } }
    }

    /// Records one event and returns its sequence number, or 0 once recording has stopped.
    ///
    /// The calls still running when recording stops can't end in the log: ``finish()`` counts
    /// their end events as dropped in the end record, and they are not recorded later.
    ///
    /// An event without text, in a log of binary records, is recorded by one of the entry points
    /// of `lifeline_record` for common fields (`lifeline_record_object`, `_number`, `_objects`,
    /// inline in the C header, so that the event is recorded without a call), or by a call of
    /// `lifeline_record` itself, which do everything from the thread's counter to the store; this
    /// function, inlined into its callers, only packs the event's fields into their arguments and
    /// picks the entry point, both known where it is inlined.
    /// Anything else (a text, JSON lines, snapshots at every call) takes the general path.
    ///
    /// `delivery` enters the delivery scope of the value or completion the event begins (as
    /// `callSites.deliveryBegins(to:)`), or leaves the innermost scope (`deliveryEnds()`), before
    /// the event is recorded: in the same call of `lifeline_record` where it can.
    @inline(__always)
    @discardableResult
    func record(
        _ phase: TraceEvent.Phase, _ kind: borrowing TraceEvent.Kind, callSite: UInt64? = nil,
        delivery: DeliveryScopeChange = .unchanged
    ) -> UInt64 {
        // The general path gets the caller's kind only for an event with a text; otherwise a
        // kind read back from the fields, built on that path alone. Given the caller's kind
        // whenever the fields won't do, the path would have the caller store the kind on its
        // stack on every event (6 instructions an event).
        guard var fields = Self.fields(phase, kind, callSite: callSite) else {
            return recordGenerally(phase, kind, callSite: callSite, delivery: delivery)
        }
        guard recordsFields, fields.fit else { return recordGenerally(phase, fields.kind, callSite: callSite, delivery: delivery) }
        if capturesCallSites && delivery != .unchanged {
            if fields.shape == .any {
                change(delivery, for: fields.kind)
            } else {
                fields.event |= delivery == .enters ? LIFELINE_EVENT_ENTERS_DELIVERY : LIFELINE_EVENT_LEAVES_SCOPE
            }
        }
        // The event's fields are known where this is inlined, and so the entry point.
        let result = switch fields.shape {
        case .object: RecordPath.record(log, fields.event, object: UInt32(truncatingIfNeeded: fields.objects))
        case .number: RecordPath.record(log, fields.event, object: UInt32(truncatingIfNeeded: fields.objects), number: fields.number)
        case .objects: RecordPath.record(log, fields.event, objects: fields.objects)
        case .any: lifeline_record(log, fields.event, fields.objects, fields.number, callSite ?? 0)
        }
        guard result >= LIFELINE_RECORD_NEEDS_PLACING else { return result }
        return finishRecording(result, fields.arguments, phase, callSite: callSite)
    }

    /// Records the beginning of a value's delivery, without description, to `subscriber`, and
    /// enters its delivery scope, as ``record(_:_:callSite:delivery:)`` would: one inlined call
    /// of `lifeline_record_object`. Only where ``recordsDeliveriesDirectly``.
    @inline(__always)
    func recordDeliveryBegin(to subscriber: TraceObjectID) {
        guard subscriber.rawValue <= UInt32.max else {
            record(.begin, .value(subscriber: subscriber, returnedDemand: nil, value: nil), delivery: .enters)
            return
        }
        recordDeliveryBegin(toRecordable: UInt32(truncatingIfNeeded: subscriber.rawValue))
    }

    /// ``recordDeliveryBegin(to:)`` for a subscriber whose id the caller knows fits a record.
    @inline(__always)
    func recordDeliveryBegin(toRecordable subscriber: UInt32) {
        let event = Self.valueBeginEvent
        let result = RecordPath.record(log, event, object: subscriber)
        guard result >= LIFELINE_RECORD_NEEDS_PLACING else { return }
        _ = finishRecording(result, RecordArguments(event: event, objects: UInt64(subscriber), number: 0), .begin, callSite: nil)
    }

    /// Records the end of a value's delivery, without description, to `subscriber`, which
    /// returned `number` (as `Subscribers.Demand.recordEncoding`), and leaves the delivery's
    /// scope unless the caller left it (``leaveDeliveryScope()``), as
    /// ``record(_:_:callSite:delivery:)`` would: one inlined call of `lifeline_record_number`.
    /// Only where ``recordsDeliveriesDirectly`` and the id fits 32 bits.
    @inline(__always)
    func recordDeliveryEnd(of subscriber: TraceObjectID, returnedDemand number: UInt64, leavingScope: Bool = true) {
        let event = Self.valueEndEvent | (leavingScope ? LIFELINE_EVENT_LEAVES_SCOPE : 0)
        let result = RecordPath.record(log, event, object: UInt32(truncatingIfNeeded: subscriber.rawValue), number: number)
        guard result >= LIFELINE_RECORD_NEEDS_PLACING else { return }
        _ = finishRecording(result, RecordArguments(event: event, objects: subscriber.rawValue, number: number), .end, callSite: nil)
    }

    /// Leaves the calling thread's innermost scope and returns the subscriber it was the delivery
    /// of, or 0 (see `lifeline_scope_leave_delivery`). Only where ``recordsDeliveriesDirectly``.
    @inline(__always)
    func leaveDeliveryScope() -> UInt64 {
        RecordPath.leaveDelivery(log)
    }

    /// The marker of the beginning of a value's delivery without description, which enters its
    /// delivery scope.
    private static var valueBeginEvent: UInt64 { 0x80 | 3 << 2 | LIFELINE_EVENT_ENTERS_DELIVERY }

    /// The marker and flags of the end of a value's delivery with its returned demand.
    private static var valueEndEvent: UInt64 { 0x80 | 3 << 2 | 1 | UInt64(LIFELINE_FIELD_DEMAND) << 8 }

    /// Records an event that `lifeline_record` does not: ``record(_:_:callSite:delivery:)``'s
    /// general path, with the scope change.
    @inline(never)
    private func recordGenerally(
        _ phase: TraceEvent.Phase, _ kind: borrowing TraceEvent.Kind, callSite: UInt64?, delivery: DeliveryScopeChange
    ) -> UInt64 {
        change(delivery, for: kind)
        return recordEvent(phase, kind, callSite: callSite)
    }

    /// What an event does to the calling thread's scopes (see `CallSiteRecorder`).
    enum DeliveryScopeChange {
        case unchanged
        /// The delivery of a value or completion to the event's subscriber begins.
        case enters
        /// The innermost scope, a delivery, ends.
        case leaves
    }

    /// Changes the scopes as `delivery` says, for `kind`, on the paths that don't leave it to
    /// `lifeline_record`.
    @inline(never)
    private func change(_ delivery: DeliveryScopeChange, for kind: borrowing TraceEvent.Kind) {
        switch delivery {
        case .enters:
            switch kind {
            case .value(let subscriber, _, _), .completion(let subscriber, _): callSites.deliveryBegins(to: subscriber)
            default: break
            }
        case .leaves:
            callSites.deliveryEnds()
        case .unchanged:
            break
        }
    }

    /// An event's arguments for `lifeline_record`.
    private struct RecordFields {
        /// The record's marker (kind and phase) and the fields.
        var event: UInt64
        var first: TraceObjectID
        var second: TraceObjectID
        /// The demand, for a request's or a value's.
        var demand: TraceDemand?
        /// The demand, or the sequence number an object was seen alive at.
        var number: UInt64 = 0
        /// Which of `lifeline_record`'s entry points builds the record.
        var shape: RecordShape

        /// The first and second object, as `lifeline_record` takes them.
        var objects: UInt64 { first.rawValue | second.rawValue << 32 }

        /// The fields as `lifeline_record` takes them, once they `fit`.
        var arguments: RecordArguments { RecordArguments(event: event, objects: objects, number: number) }

        /// Whether a binary record can hold the fields: each object fits 32 bits and the
        /// demand is encodable.
        var fit: Bool

        /// The event's kind, read back from the fields: what the general path takes, so that
        /// the common path never builds it in memory (a kind that the inlined caller shares
        /// with the general path is stored on its stack on every event, 6 instructions).
        var kind: TraceEvent.Kind {
            RecordArguments.kind(event: event, first: first, second: second, demand: demand, number: number)
        }
    }

    /// An event's fields as `lifeline_record` takes them.
    private struct RecordArguments {
        var event: UInt64
        var objects: UInt64
        var number: UInt64

        var kind: TraceEvent.Kind {
            let flags = UInt32(truncatingIfNeeded: event >> 8)
            return Self.kind(
                event: event, first: TraceObjectID(objects & 0xFFFF_FFFF), second: TraceObjectID(objects >> 32),
                demand: flags & LIFELINE_FIELD_DEMAND != 0 ? TraceDemand(encoded: number) : nil, number: number
            )
        }

        /// The kind of an event with the marker and flags `event`.
        static func kind(
            event: UInt64, first: TraceObjectID, second: TraceObjectID, demand: TraceDemand?, number: UInt64
        ) -> TraceEvent.Kind {
            let flags = UInt32(truncatingIfNeeded: event >> 8)
            return switch (event >> 2) & 0x1F {
            case 0: .subscribe(publisher: first, subscriber: second)
            case 1: .receiveSubscription(subscriber: first, subscription: second)
            case 2: .request(subscription: first, demand: demand ?? .unlimited)
            case 3: .value(subscriber: first, returnedDemand: demand, value: nil)
            case 4: .completion(subscriber: first, completion: .finished)
            case 5: .cancel(subscription: first)
            default: .deallocation(
                object: first, evidence: flags & LIFELINE_FIELD_OBSERVED != 0 ? .observed(aliveAtSeq: number) : .exact
            )
            }
        }
    }

    /// The entry points of `lifeline_record`: one for each set of fields common events have,
    /// which builds its record without looking at the fields.
    private enum RecordShape {
        /// `lifeline_record_object`: the object alone.
        case object
        /// `lifeline_record_number`: the object and a demand or alive_at.
        case number
        /// `lifeline_record_objects`: two objects.
        case objects
        /// `lifeline_record`: any other.
        case any
    }

    /// The arguments of an event for `lifeline_record`, or nil when it has a text (see
    /// `RecordFields.fit` for fields a record can't hold).
    @inline(__always)
    private static func fields(
        _ phase: TraceEvent.Phase, _ kind: borrowing TraceEvent.Kind, callSite: UInt64?
    ) -> RecordFields? {
        let phaseCode: UInt64 = switch phase {
        case .begin: 0
        case .end: 1
        case .instant: 2
        }
        var code: UInt64
        var fieldFlags: UInt32 = callSite != nil ? LIFELINE_FIELD_SITE : 0
        var first: TraceObjectID
        var second = TraceObjectID(0)
        var number: UInt64 = 0
        var demand: TraceDemand?
        var fit = true
        switch kind {
        case .subscribe(let publisher, let subscriber):
            (code, first, second) = (0, publisher, subscriber)
            fieldFlags |= LIFELINE_FIELD_SECOND
        case .receiveSubscription(let subscriber, let subscription):
            (code, first, second) = (1, subscriber, subscription)
            fieldFlags |= LIFELINE_FIELD_SECOND
        case .request(let subscription, let requested):
            (code, first, demand) = (2, subscription, requested)
            if requested.isEncodable { number = requested.encoded } else { fit = false }
            fieldFlags |= LIFELINE_FIELD_DEMAND
        case .value(_, _, .some):
            return nil
        case .value(let subscriber, let returned, .none):
            (code, first) = (3, subscriber)
            if let returned {
                demand = returned
                if returned.isEncodable { number = returned.encoded } else { fit = false }
                fieldFlags |= LIFELINE_FIELD_DEMAND
            }
        case .completion(let subscriber, .finished):
            (code, first) = (4, subscriber)
        case .completion, .mark:
            return nil
        case .cancel(let subscription):
            (code, first) = (5, subscription)
        case .deallocation(let object, let evidence):
            (code, first) = (6, object)
            if case .observed(let seq) = evidence {
                number = seq
                fieldFlags |= LIFELINE_FIELD_OBSERVED
            }
        }
        if first.rawValue > UInt32.max || second.rawValue > UInt32.max { fit = false }
        let shape: RecordShape = switch fieldFlags {
        case 0: .object
        case LIFELINE_FIELD_DEMAND, LIFELINE_FIELD_OBSERVED: .number
        case LIFELINE_FIELD_SECOND: .objects
        default: .any
        }
        return RecordFields(
            event: (0x80 | code << 2 | phaseCode) | UInt64(fieldFlags) << 8, first: first, second: second,
            demand: demand, number: number, shape: shape, fit: fit
        )
    }

    /// After `lifeline_record` returned `result`, one of its `LIFELINE_RECORD_*` results: does
    /// what it asks for (adopt the thread, give it a chunk of the log, name its queue, place a
    /// record its chunk has no room for) and records the event, `fields` of `phase`. The fields
    /// come as `lifeline_record` takes them, three words passed in registers: the whole
    /// `RecordFields` would be stored on the caller's stack on every event.
    @inline(never)
    private func finishRecording(_ result: UInt64, _ fields: RecordArguments, _ phase: TraceEvent.Phase, callSite: UInt64?) -> UInt64 {
        var result = result
        while true {
            switch result {
            case LIFELINE_RECORD_NEEDS_THREAD:
                adoptThread()
            case LIFELINE_RECORD_NEEDS_CHUNK:
                writer.adoptChunk()
            case LIFELINE_RECORD_NEEDS_QUEUE:
                let label = lifeline_record_pending().pointee.label!
                lifeline_thread_cache_queue(generation, label, queueID(labelled: label, thread: lifeline_thread_id()))
            case LIFELINE_RECORD_NEEDS_PLACING:
                let pending = lifeline_record_pending()!
                writer.place(pending)
                return pending.pointee.seq
            case LIFELINE_RECORD_UNFIT:
                // A thread id past 32 bits: the general path writes the event as a JSON line.
                return recordEvent(phase, fields.kind, callSite: callSite)
            default:
                return result
            }
            result = lifeline_record(log, fields.event, fields.objects, fields.number, callSite ?? 0)
        }
    }

    /// Records any event: ``record(_:_:callSite:)``'s general path.
    @inline(never)
    private func recordEvent(_ phase: TraceEvent.Phase, _ kind: borrowing TraceEvent.Kind, callSite: UInt64?) -> UInt64 {
        guard let ticket = writer.beginEvent() else { return 0 }
        defer { writer.endEvent(ticket) }
        // The thread's counter changes once the event is numbered, while its chunk is busy: the
        // counters are settled once numbering stopped (see `finish()`).
        let delta: Int64 = switch phase {
        case .begin: 1
        case .end: -1
        case .instant: 0
        }
        var queueID: UInt32 = 0
        var label: UnsafePointer<CChar>?
        var thread = lifeline_thread_event(generation, delta, &queueID, &label)
        if thread == 0 {
            adoptThread()
            thread = lifeline_thread_event(generation, delta, &queueID, &label)
        }
        let queue: UInt32? = switch queueID {
        case 0, UInt32.max: nil
        case LIFELINE_QUEUE_MISS: resolveQueue(label!, thread: thread)
        default: queueID
        }
        if snapshotsEveryCall { snapshots.touch(copy kind) }
        let time = readsTimeStampCounter ? lifeline_tsc() : lifeline_monotonic_ns() &- clockOrigin
        if writesRecords,
           writer.appendRecord(ticket, time: time, thread: thread, queue: queue, phase: phase, kind: kind, callSite: callSite) {
            return ticket.seq
        }
        let event = TraceEvent(
            seq: ticket.seq, time: time, thread: thread, queue: queue, phase: phase, kind: copy kind, callSite: callSite
        )
        if writesRecords {
            writer.appendRecord(event, in: ticket)
        } else {
            writer.append(event)
        }
        return ticket.seq
    }

    /// The time-stamp counter's reference for the header: a reading with the event time it was
    /// taken at, and the counter's rate over half a millisecond of CLOCK_MONOTONIC, for a log
    /// killed before its first `clock` line.
    private static func measureTimeStampCounter(origin: UInt64) -> TraceHeader.TickReference {
        let start = readClocks(origin: origin)
        var end = start
        while end.time < start.time + 500_000 { end = readClocks(origin: origin) }
        // A thread moved to a core whose counter lags could read it backwards: then any rate
        // will do, as the clock lines will set it.
        let perSecond = (end.tsc > start.tsc ? end.tsc - start.tsc : 1).multipliedFullWidth(by: 1_000_000_000)
        let rate = perSecond.high < end.time - start.time
            ? (end.time - start.time).dividingFullWidth(perSecond).quotient : 1
        return TraceHeader.TickReference(tsc: start.tsc, time: start.time, perSecond: max(rate, 1))
    }

    /// The time-stamp counter and CLOCK_MONOTONIC (as an event time) read together: the counter
    /// is read before and after the clock, and its mean taken.
    private static func readClocks(origin: UInt64) -> (tsc: UInt64, time: UInt64) {
        let before = lifeline_tsc()
        let now = lifeline_monotonic_ns()
        let after = lifeline_tsc()
        return (after >= before ? before + (after - before) / 2 : before, now &- origin)
    }

    /// The running session, if any. (Inside `Publishers.Lifeline` the name `Lifeline` means
    /// the operator, so the operator asks here.)
    static var current: RecordingSession? { Lifeline.current }

    /// Struct publishers waiting for the end of their subscribe call.
    let publisherIDs = PendingPublishers()

    /// The trace id of anything Combine hands over: class instances by identity, value types
    /// by their combine identifier when they have one, otherwise a fresh id per call.
    ///
    /// A subscriber or subscription first seen inside a subscribe call is declared with that
    /// call's site, so that it names the program's line that made its pipeline.
    /// `joinedMidStream` marks an object first seen in the middle of its subscription (see
    /// `TraceObject.joinedMidStream`); it only matters the first time. `metadata` is the
    /// metadata of the static type the caller saw the object as; a class instance is then
    /// cached under it for the hot path (see `ObjectRegistry.cachedID(of:metadata:)`).
    func identify(
        _ object: Any, role: TraceObjectRole, key: CombineIdentifier? = nil,
        label: String? = nil, sourceLocation: TraceSourceLocation? = nil, joinedMidStream: Bool = false,
        metadata: UnsafeRawPointer? = nil
    ) -> TraceObjectID {
        let type = type(of: object)
        let isClass = type is AnyClass
        let declare = { (id: TraceObjectID) in
            let name = TypeName.of(type)
            // A publisher serves many pipelines, and so can a value-type subscription keyed by
            // its combine identifier (`Subscriptions.empty` is one value for every pipeline):
            // neither is named by the line that happened to meet it first.
            let shared = role == .publisher || (role == .subscription && !isClass)
            let site = shared ? nil : self.callSites.currentSubscribeSite
            if let site { self.callSites.note(site, of: id) }
            return TraceObject(
                id: id, role: role, typeName: name.full, shortTypeName: name.short, label: label,
                sourceLocation: sourceLocation, callSite: site, lifetimeTracked: isClass, joinedMidStream: joinedMidStream
            )
        }
        let identity: ObjectRegistry.Identity
        if isClass {
            identity = registry.identify(
                object: object as AnyObject, role: role, combineIdentifier: key, metadata: metadata, seenAliveAt: lastSeq,
                declared: { [snapshots] address in snapshots.claim(address: address, typeName: TypeName.of(type).full) },
                declare: declare
            )
        } else if let key {
            identity = registry.identify(value: key, metadata: metadata, declare: declare)
        } else {
            let id = registry.freshID()
            identity = ObjectRegistry.Identity(id: id, declaration: declare(id), death: nil)
        }
        note(identity)
        return identity.id
    }

    /// Writes an object's declaration line, which names its type and hop by the number of a
    /// `type` line, written the first time.
    func declare(_ object: TraceObject) {
        let type = types.type(of: object) { type in TraceLineEncoder.withLine(for: type) { writer.append($0) } }
        TraceLineEncoder.withLine(for: object, type: type) { writer.append($0) }
    }

    private func note(_ identity: ObjectRegistry.Identity) {
        if let death = identity.death { recordDeath(death) }
        if let declaration = identity.declaration { declare(declaration) }
    }

    /// The sequence number of the last event recorded, or 0 before the first.
    var lastSeq: UInt64 {
        writer.lastSequence
    }

    /// Writes a snapshot line.
    func write(_ snapshot: TraceSnapshot) {
        TraceLineEncoder.withLine(for: snapshot) { writer.append($0) }
    }

    /// Writes a snapshot line that says what changed since the snapshot before it.
    func write(_ delta: TraceSnapshotDelta) {
        TraceLineEncoder.withLine(for: delta) { writer.append($0) }
    }

    /// Takes a reference-graph snapshot of every object the recording knows and every
    /// tracked root, and writes it.
    func takeSnapshot(label: String, reason: TraceSnapshot.Reason) {
        snapshots.take(label: label, reason: reason, in: self, roots: roots)
    }

    /// Stops treating `object` as a root: later snapshots neither start from it nor name it.
    func untrack(_ object: AnyObject) {
        roots.untrack(object)
        if let id = registry.knownID(of: object) { snapshots.forgetRoot(id) }
    }

    /// After a subscribe, completion or cancel call whose end is event `seq`: records the
    /// deaths since the last check, then takes an automatic snapshot when the options ask for
    /// them.
    func callEnded(at seq: UInt64, snapshotReason reason: TraceSnapshot.Reason) {
        sweep(after: seq)
        guard options.snapshots == .everyCall else { return }
        takeSnapshot(label: "after \(reason.rawValue) @\(seq)", reason: reason)
    }

    /// Checks which tracked objects died since the last check, and records their deaths: the
    /// next few tracked objects in turn (see `ObjectRegistry.sweepStep`).
    func sweep(after seq: UInt64) {
        registry.sweep(aliveAt: seq).forEach(recordDeath)
    }

    /// Records that `id` was deallocated, seen as it happened.
    func recordExactDeath(of id: TraceObjectID) {
        guard registry.retire(id) else { return }
        callSites.forget(id)
        record(.instant, .deallocation(object: id, evidence: .exact))
    }

    /// Records an exact deallocation of an object the registry does not track (a proxy).
    func recordProxyDeath(of id: TraceObjectID) {
        record(.instant, .deallocation(object: id, evidence: .exact))
    }

    /// The descriptions of the values being delivered on each thread, so that automatic mode
    /// describes each value once.
    let valueDescriptions = ValueDescriptionStack()

    /// Makes the description of a value, when value descriptions are on.
    ///
    /// The check is inlined, the description not: a caller that inlined it would fetch the
    /// value's type metadata and make room for a copy of the value on every call, described or
    /// not.
    @inline(__always)
    func describe<Value>(_ value: Value) -> String? {
        guard let limit = options.valueDescriptionLimit else { return nil }
        return describe(value, limit: limit)
    }

    @inline(never)
    private func describe<Value>(_ value: Value, limit: Int) -> String {
        let text = String(describing: value)
        return text.count <= limit ? text : String(text.prefix(limit)) + "…"
    }

    /// Starts the thread that writes a hang record when the watchdog (the options' period)
    /// sees no event while pipelines are open, or when the process receives `SIGQUIT`.
    func watchForHangs() {
        hangWatch.withLock { $0 = HangWatch(session: self, period: options.watchdog) }
    }

    /// Changes the watchdog's period, at least `RecordingOptions.shortestWatchdog`; `nil` turns
    /// it off (`SIGQUIT` still writes a hang record).
    func setWatchdog(_ period: Duration?) {
        hangWatch.withLock { $0?.setPeriod(period.map { max($0, RecordingOptions.shortestWatchdog) }) }
    }

    /// Writes a hang record for the log written so far, then a complete snapshot (reason
    /// `hang`), and returns whether it did: not once the log is closing, nor, when
    /// `quietFor` is given, for a log in which no subscription is open or whose last event is
    /// more recent than that (the program moved again meanwhile). The record follows the last
    /// event the log holds, and says how long ago that event was.
    @discardableResult
    func recordHang(_ cause: TraceHang.Cause, quietFor: Duration? = nil) -> Bool {
        hangRecords.withLock { closing in
            guard !closing, let trace = try? TraceReader.read(contentsOf: path) else { return false }
            let now = lifeline_monotonic_ns() &- clockOrigin
            let last = trace.events.last
            let hang = TraceHang(seq: last?.seq ?? 0, time: now, idle: now - min(last?.time ?? 0, now), cause: cause)
            if let quietFor {
                let (seconds, attoseconds) = quietFor.components
                let least = UInt64(clamping: seconds) &* 1_000_000_000 &+ UInt64(clamping: attoseconds / 1_000_000_000)
                guard hang.idle >= least, trace.hasOpenSubscriptions else { return false }
            }
            TraceLineEncoder.withLine(for: hang) { writer.append($0) }
            takeSnapshot(label: "hang @\(hang.seq) (\(cause.rawValue))", reason: .hang)
            return true
        }
    }

    /// Records the deaths a final check finds, takes the stop snapshot unless the options
    /// say none, closes the log, and lets go of the objects the registry holds.
    func finish() {
        hangWatch.withLock { $0 }?.stop()
        hangRecords.withLock { $0 = true }
        registry.sweepAll(aliveAt: lastSeq).forEach(recordDeath)
        if options.snapshots != .none { takeSnapshot(label: "stop", reason: .stop) }
        for site in callSites.resolvedSites() {
            TraceLineEncoder.withLine(for: site) { writer.append($0) }
        }
        // Once numbering stopped, every event numbered before is written and every thread's
        // counter settled.
        writer.stopNumbering()
        let openCalls = contexts.withLock { $0.openCallCounters.reduce(0) { $0 + lifeline_thread_open_calls(UnsafePointer(bitPattern: $1)) } }
        let unfinishedCalls = UInt64(max(0, openCalls))
        writer.closeNumbered(neverAppended: unfinishedCalls)
        if let shortfall = writer.shortfall {
            FileHandle.standardError.write(Data("lifeline: \(shortfall)\n".utf8))
        }
        registry.close()
    }

    private func recordDeath(_ death: ObjectRegistry.Death) {
        callSites.forget(death.id)
        record(.instant, .deallocation(object: death.id, evidence: .observed(aliveAtSeq: death.aliveAtSeq)))
    }

    /// Gives the calling thread, seen for the first time, its counter of unfinished calls and
    /// declares it.
    private func adoptThread() {
        let counter = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
        counter.initialize(to: 0)
        let tid = lifeline_thread_id()
        let name = contexts.withLock { contexts in
            contexts.openCallCounters.append(UInt(bitPattern: counter))
            guard tid != lifeline_process_id() else { return "main" }
            contexts.unnamedThreads += 1
            return "thread \(contexts.unnamedThreads)"
        }
        lifeline_thread_adopt(generation, counter)
        TraceLineEncoder.withLine(for: TraceThread(tid: tid, name: name)) { writer.append($0) }
    }

    /// The trace-local id of the dispatch queue labelled `label` that the caller runs on, the
    /// first time the thread meets it: declared on first sight in the recording, and cached
    /// for the thread. The main thread reports the main queue's label even outside the main
    /// queue, so there the thread's own name is used.
    private func resolveQueue(_ label: UnsafePointer<CChar>, thread: UInt64) -> UInt32? {
        let id = queueID(labelled: label, thread: thread)
        lifeline_thread_cache_queue(generation, label, id)
        return id == UInt32.max ? nil : id
    }

    /// The trace-local id of the dispatch queue labelled `label`, declared on first sight in the
    /// recording; `UInt32.max` for the main queue on the main thread.
    private func queueID(labelled label: UnsafePointer<CChar>, thread: UInt64) -> UInt32 {
        let text = String(cString: label)
        guard thread != lifeline_process_id() || text != "com.apple.main-thread" else { return UInt32.max }
        return contexts.withLock { contexts in
            if let id = contexts.queueIDs[text] { return id }
            let id = UInt32(contexts.queueIDs.count + 1)
            contexts.queueIDs[text] = id
            TraceLineEncoder.withLine(for: TraceQueue(id: id, label: text)) { writer.append($0) }
            return id
        }
    }
}
