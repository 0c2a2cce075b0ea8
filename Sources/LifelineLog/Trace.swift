/// A whole recorded log: the header, the declared objects, threads and queues, and the
/// events in sequence order.
public struct Trace: Sendable {
    /// The log's first line.
    public let header: TraceHeader
    /// Every declared object, by id.
    public let objects: [TraceObjectID: TraceObject]
    /// Every declared thread, by kernel thread id.
    public let threads: [UInt64: TraceThread]
    /// Every declared dispatch queue, by trace-local id.
    public let queues: [UInt32: TraceQueue]
    /// The events, ordered by ``TraceEvent/seq``.
    public let events: [TraceEvent]
    /// The reference-graph snapshots, ordered by the event they follow
    /// (``TraceSnapshot/seq``), then by ``TraceSnapshot/index``.
    public let snapshots: [TraceSnapshot]
    /// What the reader tolerated: what a crash leaves (which loses no recorded event but the
    /// last), events the recorder dropped, and events missing from a closed log.
    public let damage: [TraceDamage]
    /// The call sites the recorder resolved when it stopped, by number. Empty for a log that
    /// was not closed cleanly, or that was recorded without call sites.
    public let callSites: [UInt64: TraceCallSite]
    /// The moments the recorder saw the program hanging (its watchdog, `SIGQUIT`, a test's
    /// timeout), ordered by the event they follow (``TraceHang/seq``), then by time.
    public let hangs: [TraceHang]

    /// Creates a trace. `events` are sorted by sequence number, `snapshots` by the event they
    /// follow and their number, `hangs` by the event they follow and their time.
    public init(
        header: TraceHeader, objects: [TraceObjectID: TraceObject], threads: [UInt64: TraceThread],
        queues: [UInt32: TraceQueue], events: [TraceEvent], snapshots: [TraceSnapshot] = [], damage: [TraceDamage],
        callSites: [UInt64: TraceCallSite] = [:], hangs: [TraceHang] = []
    ) {
        self.header = header
        self.objects = objects
        self.threads = threads
        self.queues = queues
        self.events = Self.isAscending(events) ? events : events.sorted { $0.seq < $1.seq }
        self.snapshots = snapshots.sorted { ($0.seq, $0.index) < ($1.seq, $1.index) }
        self.damage = damage
        self.callSites = callSites
        self.hangs = hangs.sorted { ($0.seq, $0.time) < ($1.seq, $1.time) }
    }

    /// Whether `events` are in ascending order of sequence number, none repeated.
    static func isAscending(_ events: [TraceEvent]) -> Bool {
        events.indices.dropFirst().allSatisfy { events[$0 - 1].seq < events[$0].seq }
    }

    /// Why the cancel that `event` begins was called, as its call site shows; `nil` when the
    /// log does not say (no call site was captured or resolved, or `event` is no cancel).
    public func cancelCause(of event: TraceEvent) -> TraceCallSite.CancelCause? {
        cancelSite(of: event)?.cancelCause
    }

    /// Where the program asked for values, for a request `event` begins that was made while
    /// its subscriber was handed the subscription, when that is somewhere else than where the
    /// pipeline was made (a hand-written subscriber's `receive(subscription:)`); `nil` otherwise.
    public func requestLocation(of event: TraceEvent) -> TraceSourceLocation? {
        guard case .request(let subscription, _) = event.kind, event.phase == .begin, let site = event.callSite,
              let location = callSites[site]?.location, location != object(subscription)?.sourceLocation
        else { return nil }
        return location
    }

    /// The resolved call site of the cancel that `event` begins, when the log has one.
    public func cancelSite(of event: TraceEvent) -> TraceCallSite? {
        guard case .cancel = event.kind, event.phase == .begin, let site = event.callSite else { return nil }
        return callSites[site]
    }

    /// The object `id` names. The reader guarantees a result for every id an event or snapshot
    /// carries: its declaration, or, when that was lost, an object of unknown type in its place
    /// (reported in ``damage`` as ``TraceDamage/undeclaredObject(_:events:snapshots:)``).
    public func object(_ id: TraceObjectID) -> TraceObject? {
        objects[id]
    }

    /// The snapshot with the most objects in it (the latest of equals): the moment a recording
    /// shows the most of who holds whom, where the last snapshot, at stop, often shows a
    /// program's objects already gone.
    public var fullestSnapshot: TraceSnapshot? {
        snapshots.max { ($0.nodes.count, $0.index) < ($1.nodes.count, $1.index) }
    }

    /// The snapshot a user or tool names: the last one with this label, or, when `reference`
    /// is a number, the last one taken at or before that sequence number.
    public func snapshot(at reference: String) -> TraceSnapshot? {
        if let labelled = snapshots.last(where: { $0.label == reference }) { return labelled }
        guard let seq = UInt64(reference) else { return nil }
        return snapshots.last { $0.seq <= seq }
    }

    /// The name of the thread and queue an event ran on: the queue label when there is one,
    /// otherwise the thread's name.
    public func executionContextName(of event: TraceEvent) -> String {
        if let queue = event.queue, let label = queues[queue]?.label { return label }
        return threads[event.thread]?.name ?? "thread \(event.thread)"
    }
}

/// Damage the reader accepted, and reports.
public enum TraceDamage: Hashable, Sendable, CustomStringConvertible {
    /// The last line was cut off, as when the process died while writing it. It was skipped.
    case truncatedFinalLine(line: Int)
    /// The log has no end record: the recording never stopped cleanly (crash or kill).
    case notClosed
    /// The recorder counted events it could not write: the log reached its size limit, or
    /// calls were still running when recording stopped, so their ends are missing.
    case droppedEvents(UInt64)
    /// Unwritten (zero) bytes inside the log, left by a thread that was interrupted while
    /// writing its event.
    case unwrittenGap(line: Int)
    /// The end record counts `counted` events, `dropped` of them not written, but the log
    /// holds `found`: events were lost (or the count is wrong), so what happened by the end
    /// of the recording is not known.
    case eventCountMismatch(counted: UInt64, dropped: UInt64, found: UInt64)
    /// Events or snapshots name an object that no line declares: its declaration was lost, as
    /// when the recording was killed while writing it or the log was cut off before it.
    /// `events` events and `snapshots` snapshot lines name it; the trace holds, in its place,
    /// an object of unknown type (``TraceObject/unknownTypeName``) in the role it was first
    /// named in.
    case undeclaredObject(TraceObjectID, events: Int, snapshots: Int)
    /// Object lines name a type (by its number, log format version 8 on) that no line declares:
    /// its declaration was lost, as when the recording was killed while writing it or the log was
    /// cut off before it. `objects` object lines name it; each of their objects is in the trace
    /// with what its own line says (its site), of unknown type (``TraceObject/unknownTypeName``),
    /// in the role the first event that names it gives it.
    case undeclaredType(UInt64, objects: Int)
    /// Events ran on a thread that no line declares; the trace names it `unknown thread <tid>`.
    case undeclaredThread(UInt64, events: Int)
    /// Events ran on a dispatch queue that no line declares; the trace labels it
    /// `unknown queue <id>`.
    case undeclaredQueue(UInt32, events: Int)

    public var description: String {
        switch self {
        case .truncatedFinalLine(let line):
            return "line \(line) is truncated (the recording was cut off while writing it); it was skipped"
        case .notClosed:
            return "the log has no end record: the recorded process stopped without stopping the recording"
        case .droppedEvents(let count):
            return "the recorder dropped \(count) events (the log reached its size limit, or its file system was full, or calls were still running when recording stopped)"
        case .unwrittenGap(let line):
            return "line \(line) holds unwritten bytes left by an interrupted writer; it was skipped"
        case .eventCountMismatch(let counted, let dropped, let found):
            let written = counted - min(dropped, counted)
            let said = dropped > 0 ? "\(counted) events, \(dropped) of them dropped," : "\(counted) events"
            let loss = found < written ? "\(written - found) events are missing" : "the count is wrong"
            return "the end record counts \(said) but the log holds \(found): \(loss)"
        case .undeclaredObject(let id, let events, let snapshots):
            let naming = [Self.count(events, "event"), Self.count(snapshots, "snapshot")].filter { !$0.isEmpty }
            return "object \(id.rawValue) is used but never declared (its declaration was lost, as when a recording is "
                + "killed while writing it): \(naming.joined(separator: " and ")) \(events + snapshots == 1 ? "names" : "name") it; "
                + "it is shown as an object of unknown type"
        case .undeclaredType(let id, let objects):
            return "type \(id) is used but never declared (its declaration was lost, as when a recording is killed while "
                + "writing it): \(Self.count(objects, "object")) \(objects == 1 ? "names" : "name") it; "
                + "\(objects == 1 ? "it is" : "they are") shown as \(objects == 1 ? "an object" : "objects") of unknown type"
        case .undeclaredThread(let tid, let events):
            return "thread \(tid) is used but never declared (its declaration was lost): \(Self.count(events, "event")) "
                + "ran on it; it is shown as \"unknown thread \(tid)\""
        case .undeclaredQueue(let id, let events):
            return "queue \(id) is used but never declared (its declaration was lost): \(Self.count(events, "event")) "
                + "ran on it; it is shown as \"unknown queue \(id)\""
        }
    }

    /// `3 events`, `1 event`, or nothing for none.
    private static func count(_ number: Int, _ noun: String) -> String {
        number == 0 ? "" : "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
