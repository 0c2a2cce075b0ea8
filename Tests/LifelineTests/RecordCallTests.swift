import CLifelineRuntime
import Foundation
import Testing
@testable import LifelineLog

/// `lifeline_record`, the recorder's hot path, writes the same records as the writer's general
/// path, and `stopNumbering()` stops events while lines still go in.
@Suite(.serialized) struct RecordCallTests {
    /// A generation no recording uses, which keys this thread's state in these tests.
    static let generation: UInt64 = .max - 7

    var header: TraceHeader {
        TraceHeader(
            version: TraceHeader.chunkedBinaryVersion, processID: 1, processName: "record-call", startedAt: "2026-11-24T01:00:00Z",
            clockOrigin: 0, valueDescriptionLimit: nil
        )
    }

    /// Every kind of event without text, with and without its optional fields.
    static let kinds: [(TraceEvent.Phase, TraceEvent.Kind, UInt64?)] = [
        (.begin, .subscribe(publisher: TraceObjectID(1), subscriber: TraceObjectID(2)), 9),
        (.begin, .receiveSubscription(subscriber: TraceObjectID(2), subscription: TraceObjectID(3)), nil),
        (.begin, .request(subscription: TraceObjectID(3), demand: .max(3)), 12),
        (.end, .request(subscription: TraceObjectID(3), demand: .unlimited), nil),
        (.end, .receiveSubscription(subscriber: TraceObjectID(2), subscription: TraceObjectID(3)), nil),
        (.end, .subscribe(publisher: TraceObjectID(1), subscriber: TraceObjectID(2)), nil),
        (.begin, .value(subscriber: TraceObjectID(2), returnedDemand: nil, value: nil), nil),
        (.end, .value(subscriber: TraceObjectID(2), returnedDemand: .max(1), value: nil), nil),
        (.begin, .completion(subscriber: TraceObjectID(2), completion: .finished), nil),
        (.end, .completion(subscriber: TraceObjectID(2), completion: .finished), nil),
        (.begin, .cancel(subscription: TraceObjectID(3)), 0xFFFF_FFFF_0000_0001),
        (.end, .cancel(subscription: TraceObjectID(3)), nil),
        (.instant, .deallocation(object: TraceObjectID(3), evidence: .exact), nil),
        (.instant, .deallocation(object: TraceObjectID(4), evidence: .observed(aliveAtSeq: 0x1_0000_0002)), nil),
    ]

    /// The arguments `RecordingSession` passes for an event.
    static func arguments(_ phase: TraceEvent.Phase, _ kind: TraceEvent.Kind, _ site: UInt64?) -> (UInt64, UInt64, UInt64) {
        var fields: UInt32 = site != nil ? LIFELINE_FIELD_SITE : 0
        var number: UInt64 = 0
        var objects: [TraceObjectID] = []
        let code: UInt64
        switch kind {
        case .subscribe(let publisher, let subscriber): (code, objects) = (0, [publisher, subscriber])
        case .receiveSubscription(let subscriber, let subscription): (code, objects) = (1, [subscriber, subscription])
        case .request(let subscription, let demand): (code, objects, number) = (2, [subscription], demand.encoded)
        case .value(let subscriber, let demand, _):
            (code, objects) = (3, [subscriber])
            if let demand { number = demand.encoded }
        case .completion(let subscriber, _): (code, objects) = (4, [subscriber])
        case .cancel(let subscription): (code, objects) = (5, [subscription])
        case .deallocation(let object, let evidence):
            (code, objects) = (6, [object])
            if case .observed(let seq) = evidence { number = seq }
        case .mark: fatalError("a mark has text")
        }
        if objects.count == 2 { fields |= LIFELINE_FIELD_SECOND }
        if case .request = kind { fields |= LIFELINE_FIELD_DEMAND }
        if case .value(_, .some, _) = kind { fields |= LIFELINE_FIELD_DEMAND }
        if case .deallocation(_, .observed) = kind { fields |= LIFELINE_FIELD_OBSERVED }
        let phaseCode: UInt64 = switch phase {
        case .begin: 0
        case .end: 1
        case .instant: 2
        }
        let ids = objects.map(\.rawValue) + [0]
        return ((0x80 | code << 2 | phaseCode) | UInt64(fields) << 8, ids[0] | ids[1] << 32, number)
    }

    /// Records an event with `lifeline_record` as `RecordingSession` does, doing what it asks
    /// for in between; `queue` is the id a queue the thread runs is given.
    static func record(
        _ event: UInt64, _ objects: UInt64, _ number: UInt64, _ site: UInt64, into writer: TraceFileWriter, queue: UInt32 = 0
    ) -> UInt64 {
        while true {
            let result = lifeline_record(writer.log, event, objects, number, site)
            switch result {
            case LIFELINE_RECORD_NEEDS_CHUNK:
                writer.adoptChunk()
            case LIFELINE_RECORD_NEEDS_QUEUE:
                lifeline_thread_cache_queue(generation, lifeline_record_pending().pointee.label, queue)
            case LIFELINE_RECORD_NEEDS_PLACING:
                writer.place(lifeline_record_pending())
                return lifeline_record_pending().pointee.seq
            default:
                return result
            }
        }
    }

    /// A log at `path` timed by the time-stamp counter, with the calling thread and one object
    /// declared, and the thread adopted with a new counter of unfinished calls, which the
    /// caller deallocates.
    func openLog(
        at path: String, declaring object: TraceObjectID, as role: TraceObjectRole
    ) throws -> (TraceFileWriter, UnsafeMutablePointer<Int64>) {
        let writer = try TraceFileWriter(path: path, header: header)
        writer.log.pointee.generation = Self.generation
        writer.log.pointee.clock_origin = .max
        TraceLineEncoder.withLine(for: TraceThread(tid: lifeline_thread_id(), name: "main")) { writer.append($0) }
        TraceLineEncoder.withLine(for: TraceObject(id: object, role: role, typeName: "T", shortTypeName: "T", lifetimeTracked: false)) {
            writer.append($0)
        }
        let counter = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
        counter.initialize(to: 0)
        lifeline_thread_adopt(Self.generation, counter)
        return (writer, counter)
    }

    /// Records `rounds` rounds of every kind with `lifeline_record` into a log with small chunks
    /// and small mapping windows (so that records straddle chunks and windows and take the
    /// placing path), as `RecordingSession` does, and reads it back.
    func recordRounds(_ rounds: Int, queue: UInt32 = 0) throws -> (Trace, UInt64) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("record-call-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try TraceFileWriter(path: path, header: header, capacity: 64 << 20, windowShift: 16, chunkSize: 96)
        writer.log.pointee.generation = Self.generation
        writer.log.pointee.clock_origin = lifeline_monotonic_ns()
        TraceLineEncoder.withLine(for: TraceThread(tid: lifeline_thread_id(), name: "main")) { writer.append($0) }
        for id in 1...4 {
            TraceLineEncoder.withLine(for: TraceObject(
                id: TraceObjectID(UInt64(id)), role: .subscriber, typeName: "T", shortTypeName: "T", lifetimeTracked: false
            )) { writer.append($0) }
        }
        if queue != 0 { TraceLineEncoder.withLine(for: TraceQueue(id: queue, label: "q")) { writer.append($0) } }
        let counter = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
        counter.initialize(to: 0)
        defer { counter.deallocate() }
        lifeline_thread_adopt(Self.generation, counter)
        var lastSeq: UInt64 = 0
        for _ in 0..<rounds {
            for (phase, kind, site) in Self.kinds {
                let (event, objects, number) = Self.arguments(phase, kind, site)
                let result = Self.record(event, objects, number, site ?? 0, into: writer, queue: queue)
                #expect(result == lastSeq + 1)
                lastSeq = result
            }
        }
        #expect(counter.pointee == 0, "the thread's counter of unfinished calls")
        writer.closeNumbered()
        return (try TraceReader.read(contentsOf: path), lastSeq)
    }

    @Test func recordsReadBackAsTheEventsTheyStandFor() throws {
        let rounds = 3_000
        let (trace, last) = try recordRounds(rounds)
        #expect(trace.damage.isEmpty)
        #expect(last == UInt64(rounds * Self.kinds.count))
        #expect(trace.events.map(\.seq) == Array(1...last))
        for (index, event) in trace.events.enumerated() {
            let (phase, kind, site) = Self.kinds[index % Self.kinds.count]
            #expect(event.phase == phase && event.kind == kind && event.callSite == site && event.queue == nil)
            #expect(event.thread == lifeline_thread_id())
            if event.phase != phase || event.kind != kind || event.callSite != site { break }
        }
        #expect(trace.events.map(\.time) == trace.events.map(\.time).sorted())
    }

    @Test func eventsOnAQueueCarryItsID() throws {
        let queue = DispatchQueue(label: "q")
        let (trace, _) = try queue.sync { try recordRounds(2, queue: 5) }
        #expect(trace.damage.isEmpty)
        #expect(trace.events.count == 2 * Self.kinds.count)
        #expect(trace.events.allSatisfy { $0.queue == 5 })
    }

    /// The entry points that record a common event can enter or leave a delivery scope in the
    /// same call, exactly once even when the call asks to be made again; lifeline_record, which
    /// the second call goes to, leaves the scopes alone.
    @Test func anEventEntersAndLeavesADeliveryScopeInTheSameCall() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("record-call-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (writer, counter) = try openLog(at: path, declaring: TraceObjectID(2), as: .subscriber)
        defer { counter.deallocate() }
        lifeline_scope_push(Self.generation, LIFELINE_SCOPE_SUBSCRIBE, 77)
        var value: UInt64 = 0
        let begin = Self.arguments(.begin, .value(subscriber: TraceObjectID(2), returnedDemand: nil, value: nil), nil)
        #expect(lifeline_record_object(writer.log, begin.0 | LIFELINE_EVENT_ENTERS_DELIVERY, 2) == LIFELINE_RECORD_NEEDS_CHUNK)
        #expect(lifeline_scope_top(Self.generation, &value) == LIFELINE_SCOPE_DELIVERY && value == 2)
        writer.adoptChunk()
        // What the session does with lifeline_record's answers, with the scope bit left in.
        #expect(Self.record(begin.0 | LIFELINE_EVENT_ENTERS_DELIVERY, 2, 0, 0, into: writer) == 1)
        #expect(lifeline_scope_top(Self.generation, &value) == LIFELINE_SCOPE_DELIVERY && value == 2)
        let end = Self.arguments(.end, .value(subscriber: TraceObjectID(2), returnedDemand: .max(1), value: nil), nil)
        #expect(lifeline_record_number(writer.log, end.0 | LIFELINE_EVENT_LEAVES_SCOPE, 2, end.2) == 2)
        #expect(lifeline_scope_top(Self.generation, &value) == LIFELINE_SCOPE_SUBSCRIBE && value == 77)
        lifeline_scope_pop(Self.generation)
        #expect(lifeline_scope_top(Self.generation, &value) == LIFELINE_SCOPE_NONE)
        #expect(counter.pointee == 0)
        writer.closeNumbered()
        let trace = try TraceReader.read(contentsOf: path)
        #expect(trace.damage.isEmpty)
        #expect(trace.events.map(\.kind) == [
            .value(subscriber: TraceObjectID(2), returnedDemand: nil, value: nil),
            .value(subscriber: TraceObjectID(2), returnedDemand: .max(1), value: nil),
        ])
    }

    /// `lifeline_scope_leave_delivery` leaves the innermost scope and hands back the subscriber
    /// a delivery's beginning entered it for, also when that beginning asked for more; the end of
    /// the delivery is recorded for it. A scope that is no delivery is left and hands back 0, for
    /// the caller to identify the subscriber.
    @Test func theEndOfADeliveryIsRecordedForTheSubscriberItsScopeEntered() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("record-call-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (writer, counter) = try openLog(at: path, declaring: TraceObjectID(2), as: .subscriber)
        defer { counter.deallocate() }
        var value: UInt64 = 0
        let begin = Self.arguments(.begin, .value(subscriber: TraceObjectID(2), returnedDemand: nil, value: nil), nil)
        let end = Self.arguments(.end, .value(subscriber: TraceObjectID(2), returnedDemand: .max(1), value: nil), nil)
        lifeline_scope_push(Self.generation, LIFELINE_SCOPE_SUBSCRIBE, 77)
        #expect(lifeline_record_object(writer.log, begin.0 | LIFELINE_EVENT_ENTERS_DELIVERY, 2) == LIFELINE_RECORD_NEEDS_CHUNK)
        // The thread had no chunk: nothing was recorded, but the scope was entered.
        #expect(lifeline_scope_leave_delivery(writer.log) == 2)
        #expect(lifeline_scope_top(Self.generation, &value) == LIFELINE_SCOPE_SUBSCRIBE && value == 77)
        writer.adoptChunk()
        // Once the thread is ready (its queue cached), the beginning enters the scope again.
        #expect(Self.record(begin.0, 2, 0, 0, into: writer) == 1)
        lifeline_scope_push(Self.generation, LIFELINE_SCOPE_DELIVERY, 2)
        let begun = lifeline_scope_leave_delivery(writer.log)
        #expect(begun == 2)
        #expect(lifeline_record_number(writer.log, end.0, UInt32(begun), end.2) == 2)
        #expect(lifeline_scope_top(Self.generation, &value) == LIFELINE_SCOPE_SUBSCRIBE && value == 77)
        // The subscribe's scope is no delivery: left, with no subscriber.
        #expect(lifeline_scope_leave_delivery(writer.log) == 0)
        #expect(lifeline_scope_top(Self.generation, &value) == LIFELINE_SCOPE_NONE)
        #expect(lifeline_scope_leave_delivery(writer.log) == 0)
        // The session then records the event itself.
        #expect(Self.record(end.0, 2, end.2, 0, into: writer) == 3)
        // The first begin was not numbered: its count stays with the thread.
        #expect(counter.pointee == -1)
        writer.closeNumbered()
        let trace = try TraceReader.read(contentsOf: path)
        #expect(trace.damage.isEmpty)
        #expect(trace.events.map(\.kind) == [
            .value(subscriber: TraceObjectID(2), returnedDemand: nil, value: nil),
            .value(subscriber: TraceObjectID(2), returnedDemand: .max(1), value: nil),
            .value(subscriber: TraceObjectID(2), returnedDemand: .max(1), value: nil),
        ])
    }

    @Test func afterNumberingStopsNoEventIsNumberedButLinesStillGoIn() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("record-call-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (writer, counter) = try openLog(at: path, declaring: TraceObjectID(3), as: .subscription)
        defer { counter.deallocate() }
        let (event, objects, number) = Self.arguments(.begin, .cancel(subscription: TraceObjectID(3)), nil)
        #expect(Self.record(event, objects, number, 0, into: writer) == 1)
        writer.stopNumbering()
        #expect(Self.record(event, objects, number, 0, into: writer) == LIFELINE_RECORD_STOPPED)
        #expect(writer.beginEvent()?.seq == nil)
        #expect(counter.pointee == 1, "an event not numbered leaves the counter as it was")
        TraceLineEncoder.withLine(for: TraceThread(tid: 2, name: "late")) { writer.append($0) }
        writer.closeNumbered(neverAppended: 1)
        let trace = try TraceReader.read(contentsOf: path)
        #expect(trace.events.map(\.seq) == [1])
        #expect(trace.threads[2]?.name == "late")
        #expect(trace.damage.contains(.droppedEvents(1)))
    }
}
