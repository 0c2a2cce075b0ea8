/// The binary form of one event in a version 6 log (docs/LogFormat.md, "Binary event records").
///
/// All numbers are little-endian. Every record is a multiple of 8 bytes long:
///
/// | offset | size | field |
/// |---:|---:|---|
/// | 0 | 1 | marker: `0x80 | kind << 2 | phase` |
/// | 1 | 1 | flags: which optional fields follow |
/// | 2 | 2 | the record's length in bytes |
/// | 4 | 4 | the thread's kernel id |
/// | 8 | 8 | `seq` |
/// | 16 | 8 | the time, in ticks of the log's event clock |
/// | 24 | 4 | the first object (`publisher` of a subscribe, otherwise the only or first one) |
/// | 28 | … | the optional fields, in this order: a second object (4), queue (4), demand (8), `alive_at` (8), call site (8), text (4-byte length, then UTF-8) |
/// | length − 1 | 1 | the commit byte, `0x0A`, written last |
///
/// The writer stores the first 8 bytes before the rest and the commit byte after everything
/// else, so a record cut short by a kill has its length and lacks its commit byte: the reader
/// skips it as damage and never reads it as an event.
enum BinaryEventRecord {
    /// The last byte of every complete record.
    static let commitByte: UInt8 = 0x0A
    /// The byte that fills the unused end of a thread's chunk in a version 7 log: never the
    /// first byte of a record (its phase bits are 3) or of a line.
    static let fillerByte: UInt8 = 0x83
    /// Records are at least this long: the fixed fields and the commit byte, rounded up.
    static let smallestLength = 32
    /// The fixed fields before the optional ones.
    static let fixedLength = 28
    /// The longest record the 16-bit length can say; an event that needs more (a huge mark) is
    /// written as a JSON line instead.
    static let longestLength = 65_528

    enum Flag {
        static let queue: UInt8 = 0x01
        static let site: UInt8 = 0x02
        static let demand: UInt8 = 0x04
        static let text: UInt8 = 0x08
        static let failure: UInt8 = 0x10
        static let observed: UInt8 = 0x20
        static let all: UInt8 = 0x3F
    }

    /// The kinds' numbers in the marker.
    enum KindCode: UInt8 {
        case subscribe = 0, receiveSubscription, request, value, completion, cancel, deallocation, mark
    }

    /// Whether `byte` can begin a record.
    @inline(__always)
    static func isMarker(_ byte: UInt8) -> Bool {
        byte & 0xE0 == 0x80 && byte & 0x03 != 0x03
    }

    /// The record's length for `event`, or nil when the event does not fit the binary form (an
    /// id or a thread id past 32 bits, a negative demand, a text too long) and must be written
    /// as a JSON line.
    @inline(__always)
    static func length(of event: borrowing TraceEvent) -> Int? {
        guard event.thread <= UInt32.max else { return nil }
        var length = fixedLength + 1
        if event.queue != nil { length += 4 }
        if event.callSite != nil { length += 8 }
        switch event.kind {
        case .subscribe(let first, let second), .receiveSubscription(let first, let second):
            guard first.rawValue <= UInt32.max, second.rawValue <= UInt32.max else { return nil }
            length += 4
        case .request(let subscription, let demand):
            guard subscription.rawValue <= UInt32.max, demand.isEncodable else { return nil }
            length += 8
        case .value(let subscriber, let demand, let value):
            guard subscriber.rawValue <= UInt32.max else { return nil }
            if let demand {
                guard demand.isEncodable else { return nil }
                length += 8
            }
            if let value { length += 4 + value.utf8.count }
        case .completion(let subscriber, let completion):
            guard subscriber.rawValue <= UInt32.max else { return nil }
            if case .failure(let error) = completion { length += 4 + error.utf8.count }
        case .cancel(let subscription):
            guard subscription.rawValue <= UInt32.max else { return nil }
        case .deallocation(let object, let evidence):
            guard object.rawValue <= UInt32.max else { return nil }
            if case .observed = evidence { length += 8 }
        case .mark(let label):
            length += 4 + label.utf8.count
        }
        length = (length + 7) & ~7
        return length <= longestLength ? length : nil
    }

    /// Writes `event`'s record, `length` bytes as ``length(of:)`` gave, at `base`.
    @inline(__always)
    static func encode(_ event: borrowing TraceEvent, length: Int, into base: UnsafeMutableRawPointer) {
        var flags: UInt8 = 0
        var code: KindCode
        var first: UInt64
        var second: UInt64?
        var demand: TraceDemand?
        var aliveAt: UInt64?
        var text: String?
        switch event.kind {
        case .subscribe(let publisher, let subscriber):
            (code, first, second) = (.subscribe, publisher.rawValue, subscriber.rawValue)
        case .receiveSubscription(let subscriber, let subscription):
            (code, first, second) = (.receiveSubscription, subscriber.rawValue, subscription.rawValue)
        case .request(let subscription, let requested):
            (code, first, demand) = (.request, subscription.rawValue, requested)
        case .value(let subscriber, let returned, let value):
            (code, first, demand, text) = (.value, subscriber.rawValue, returned, value)
        case .completion(let subscriber, let completion):
            (code, first) = (.completion, subscriber.rawValue)
            if case .failure(let error) = completion {
                flags |= Flag.failure
                text = error
            }
        case .cancel(let subscription):
            (code, first) = (.cancel, subscription.rawValue)
        case .deallocation(let object, let evidence):
            (code, first) = (.deallocation, object.rawValue)
            if case .observed(let seq) = evidence {
                flags |= Flag.observed
                aliveAt = seq
            }
        case .mark(let label):
            (code, first, text) = (.mark, 0, label)
        }
        var offset = fixedLength
        if let second {
            base.storeBytes(of: UInt32(truncatingIfNeeded: second).littleEndian, toByteOffset: offset, as: UInt32.self)
            offset += 4
        }
        if let queue = event.queue {
            flags |= Flag.queue
            base.storeBytes(of: queue.littleEndian, toByteOffset: offset, as: UInt32.self)
            offset += 4
        }
        if let demand {
            flags |= Flag.demand
            base.storeBytes(of: demand.encoded.littleEndian, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        if let aliveAt {
            base.storeBytes(of: aliveAt.littleEndian, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        if let site = event.callSite {
            flags |= Flag.site
            base.storeBytes(of: site.littleEndian, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        if var text {
            flags |= Flag.text
            text.withUTF8 { utf8 in
                base.storeBytes(of: UInt32(utf8.count).littleEndian, toByteOffset: offset, as: UInt32.self)
                offset += 4
                if let source = utf8.baseAddress { (base + offset).copyMemory(from: source, byteCount: utf8.count) }
                offset += utf8.count
            }
        }
        // Padding, so that the bytes of the record never hold another's leftovers.
        while offset < length - 1 {
            base.storeBytes(of: 0, toByteOffset: offset, as: UInt8.self)
            offset += 1
        }
        let phase: UInt8 = switch event.phase {
        case .begin: 0
        case .end: 1
        case .instant: 2
        }
        let marker = 0x80 | code.rawValue << 2 | phase
        let head = UInt64(marker) | UInt64(flags) << 8 | UInt64(length) << 16 | UInt64(UInt32(truncatingIfNeeded: event.thread)) << 32
        base.storeBytes(of: head.littleEndian, as: UInt64.self)
        base.storeBytes(of: event.seq.littleEndian, toByteOffset: 8, as: UInt64.self)
        base.storeBytes(of: event.time.littleEndian, toByteOffset: 16, as: UInt64.self)
        base.storeBytes(of: UInt32(truncatingIfNeeded: first).littleEndian, toByteOffset: 24, as: UInt32.self)
        base.storeBytes(of: commitByte, toByteOffset: length - 1, as: UInt8.self)
    }

    /// The length a record starting with `head` (at least 4 bytes) says it has, or nil when
    /// that is no record's length.
    static func declaredLength(_ head: UnsafeRawBufferPointer) -> Int? {
        let length = Int(head.loadUnaligned(fromByteOffset: 2, as: UInt16.self).littleEndian)
        guard length >= smallestLength, length % 8 == 0 else { return nil }
        return length
    }

    /// Decodes a complete record (its commit byte checked by the caller). The time is left in
    /// the log's ticks. `number` names the record in errors.
    static func decode(_ record: UnsafeRawBufferPointer, number: Int) throws(TraceReadError) -> TraceEvent {
        func bad(_ field: String, _ reason: String) -> TraceReadError {
            .badField(line: number, field: field, reason: reason)
        }
        let marker = record[0], flags = record[1]
        guard let code = KindCode(rawValue: (marker >> 2) & 0x07), isMarker(marker) else {
            throw .malformedLine(line: number, reason: "a binary record with the unknown marker 0x\(String(marker, radix: 16))")
        }
        let phase: TraceEvent.Phase = switch marker & 0x03 {
        case 0: .begin
        case 1: .end
        default: .instant
        }
        let allowed: UInt8 = switch code {
        case .value: Flag.queue | Flag.site | Flag.demand | Flag.text
        case .completion: Flag.queue | Flag.site | Flag.failure | Flag.text
        case .deallocation: Flag.queue | Flag.site | Flag.observed
        case .request: Flag.queue | Flag.site | Flag.demand
        case .mark: Flag.queue | Flag.site | Flag.text
        default: Flag.queue | Flag.site
        }
        guard flags & ~allowed == 0 else { throw bad("flags", "has bits this kind of record does not have (0x\(String(flags, radix: 16)))") }
        if code == .request, flags & Flag.demand == 0 { throw bad("demand", "is missing") }
        if code == .mark, flags & Flag.text == 0 { throw bad("label", "is missing") }
        if code == .completion, (flags & Flag.failure == 0) != (flags & Flag.text == 0) {
            throw bad("error", flags & Flag.failure == 0 ? "is present on a completion that finished" : "is missing")
        }
        var reader = FieldReader(record: record, offset: fixedLength, number: number)
        let first = TraceObjectID(UInt64(record.loadUnaligned(fromByteOffset: 24, as: UInt32.self).littleEndian))
        let second = code == .subscribe || code == .receiveSubscription ? TraceObjectID(UInt64(try reader.u32("object"))) : first
        let queue = flags & Flag.queue != 0 ? try reader.u32("queue") : nil
        var demand: TraceDemand?
        if flags & Flag.demand != 0 {
            guard let value = TraceDemand(encoded: try reader.u64("demand")) else { throw bad("demand", "is out of range") }
            demand = value
        }
        let aliveAt = flags & Flag.observed != 0 ? try reader.u64("alive_at") : nil
        let site = flags & Flag.site != 0 ? try reader.u64("site") : nil
        let text = flags & Flag.text != 0 ? try reader.text() : nil
        guard (reader.offset + 8) & ~7 == record.count else {
            throw .malformedLine(line: number, reason: "a binary record of \(record.count) bytes whose fields take \(reader.offset + 1)")
        }
        let kind: TraceEvent.Kind = switch code {
        case .subscribe: .subscribe(publisher: first, subscriber: second)
        case .receiveSubscription: .receiveSubscription(subscriber: first, subscription: second)
        case .request: .request(subscription: first, demand: demand!)
        case .value: .value(subscriber: first, returnedDemand: demand, value: text)
        case .completion: .completion(subscriber: first, completion: text.map { .failure($0) } ?? .finished)
        case .cancel: .cancel(subscription: first)
        case .deallocation: .deallocation(object: first, evidence: aliveAt.map { .observed(aliveAtSeq: $0) } ?? .exact)
        case .mark: .mark(label: text!)
        }
        return TraceEvent(
            seq: record.loadUnaligned(fromByteOffset: 8, as: UInt64.self).littleEndian,
            time: record.loadUnaligned(fromByteOffset: 16, as: UInt64.self).littleEndian,
            thread: UInt64(record.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian),
            queue: queue, phase: phase, kind: kind, callSite: site
        )
    }

    /// Reads the optional fields in order, each checked against the record's end.
    private struct FieldReader {
        let record: UnsafeRawBufferPointer
        var offset: Int
        let number: Int

        mutating func u32(_ field: String) throws(TraceReadError) -> UInt32 {
            try room(4, field)
            defer { offset += 4 }
            return record.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian
        }

        mutating func u64(_ field: String) throws(TraceReadError) -> UInt64 {
            try room(8, field)
            defer { offset += 8 }
            return record.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian
        }

        mutating func text() throws(TraceReadError) -> String {
            let count = Int(try u32("text"))
            try room(count, "text")
            defer { offset += count }
            guard let text = String(validating: UnsafeRawBufferPointer(rebasing: record[offset..<(offset + count)]), as: UTF8.self) else {
                throw .badField(line: number, field: "text", reason: "is not UTF-8")
            }
            return text
        }

        private func room(_ count: Int, _ field: String) throws(TraceReadError) {
            // The commit byte is the record's last; fields end before it.
            guard count <= record.count - 1 - offset else {
                throw .badField(line: number, field: field, reason: "runs past the end of its binary record")
            }
        }
    }
}

extension TraceDemand {
    /// The demand as a record holds it: the count, or all ones for unlimited.
    @inlinable
    package var encoded: UInt64 {
        switch self {
        case .max(let count): UInt64(count)
        case .unlimited: .max
        }
    }

    /// Whether ``encoded`` can hold this demand.
    @inlinable
    package var isEncodable: Bool {
        if case .max(let count) = self { return count >= 0 }
        return true
    }

    /// The demand `encoded` holds, or nil for a count past `Int.max`.
    package init?(encoded: UInt64) {
        if encoded == .max {
            self = .unlimited
        } else if let count = Int(exactly: encoded) {
            self = .max(count)
        } else {
            return nil
        }
    }
}
