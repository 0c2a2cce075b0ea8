import Foundation

/// Writes Chrome trace events as JSON by hand: one event per line, keys in a fixed order,
/// so the bytes depend only on the events.
struct PerfettoEventWriter {
    /// An argument value.
    enum Value {
        case text(String)
        case number(UInt64)
        /// Text already quoted for JSON (``quoted(_:)``): what many events repeat is quoted once.
        case quoted([UInt8])
    }

    /// `text` as a quoted JSON string, in UTF-8.
    static func quoted(_ text: String) -> [UInt8] {
        Array(JSONText.quoted(text).utf8)
    }

    /// An event's arguments: a handful of keys, kept in a list in key order (the order the
    /// object is written in) rather than hashed. Keys are literals in plain ASCII with nothing
    /// to escape, compared and written as their bytes: a million events set several each.
    struct Arguments: ExpressibleByDictionaryLiteral {
        fileprivate var pairs: [(key: StaticString, value: Value)] = []

        init(dictionaryLiteral elements: (StaticString, Value)...) {
            for (key, value) in elements { self[key] = value }
        }

        var isEmpty: Bool { pairs.isEmpty }

        /// Removes every argument and keeps the room they took, so that one list serves every
        /// event of a million rather than one list allocated per event.
        mutating func removeAll() {
            pairs.removeAll(keepingCapacity: true)
        }

        subscript(key: StaticString) -> Value? {
            get { pairs.first { Self.order($0.key, key) == 0 }?.value }
            set {
                let position = pairs.firstIndex { Self.order($0.key, key) >= 0 } ?? pairs.endIndex
                let present = position < pairs.endIndex && Self.order(pairs[position].key, key) == 0
                switch (newValue, present) {
                case (let value?, true): pairs[position].value = value
                case (let value?, false): pairs.insert((key, value), at: position)
                case (nil, true): pairs.remove(at: position)
                case (nil, false): break
                }
            }
        }

        /// Negative, zero or positive as `lhs` sorts before, with or after `rhs`: their bytes
        /// compared, as ASCII strings sort.
        private static func order(_ lhs: StaticString, _ rhs: StaticString) -> Int {
            let common = min(lhs.utf8CodeUnitCount, rhs.utf8CodeUnitCount)
            let bytes = Int(memcmp(lhs.utf8Start, rhs.utf8Start, common))
            return bytes != 0 ? bytes : lhs.utf8CodeUnitCount - rhs.utf8CodeUnitCount
        }
    }

    private let processID: UInt64
    /// The events written since the last ``flush(to:)`` as UTF-8, each on its line, separated
    /// by `,` and a newline.
    private let bytes = Bytes(capacity: flushSize + 4_096)
    /// How many bytes ``flushIfFull(to:)`` lets gather before it hands them on.
    private static let flushSize = 1 << 20

    init(processID: UInt64) {
        self.processID = processID
        append("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")
    }

    /// Hands the bytes written so far to `emit` when they are a megabyte or more, so that a
    /// document of hundreds of megabytes is never held whole.
    mutating func flushIfFull(to emit: (UnsafeRawBufferPointer) -> Void) {
        if bytes.count >= Self.flushSize { flush(to: emit) }
    }

    /// Hands the bytes written so far to `emit`.
    private mutating func flush(to emit: (UnsafeRawBufferPointer) -> Void) {
        emit(UnsafeRawBufferPointer(start: bytes.start, count: bytes.count))
        bytes.count = 0
    }

    /// A metadata event (`ph: "M"`), such as `thread_name`.
    mutating func metadata(_ name: String, thread: UInt64, args: Arguments) {
        startLine()
        append("{\"ph\":\"M\",\"name\":")
        appendQuoted(name)
        append(",\"pid\":")
        appendNumber(processID)
        append(",\"tid\":")
        appendNumber(thread)
        append(",\"args\":")
        appendObject(args)
        append("}")
    }

    /// An event at `time` (nanoseconds) on `thread`.
    ///
    /// - Parameters:
    ///   - phase: `B`/`E` slice begin and end, `b`/`e` async slice, `s`/`f` flow, `i` instant.
    ///   - id: The async slice's or flow's id.
    ///   - scope: An instant's scope: `t` thread, `g` global.
    ///   - bindToEnclosing: For a flow end, bind to the slice that encloses it (`bp: "e"`).
    mutating func event(
        phase: StaticString, name: String, category: StaticString, time: UInt64, thread: UInt64, id: UInt64? = nil,
        scope: StaticString? = nil, bindToEnclosing: Bool = false, args: Arguments = [:]
    ) {
        event(phase: phase, name: .text(name), category: category, time: time, thread: thread, id: id, scope: scope,
              bindToEnclosing: bindToEnclosing, args: args)
    }

    /// An event named by `name`, text or already quoted, as the event named by a string.
    mutating func event(
        phase: StaticString, name: Value, category: StaticString, time: UInt64, thread: UInt64, id: UInt64? = nil,
        scope: StaticString? = nil, bindToEnclosing: Bool = false, args: Arguments = [:]
    ) {
        startLine()
        append("{\"ph\":\"")
        append(phase)
        append("\",\"name\":")
        appendValue(name)
        append(",\"cat\":\"")
        append(category)
        append("\",\"pid\":")
        appendNumber(processID)
        append(",\"tid\":")
        appendNumber(thread)
        append(",\"ts\":")
        // Nanoseconds as the microseconds the format counts in, exactly: `1500` is `1.500`.
        appendNumber(time / 1_000)
        let fraction = time % 1_000
        append(fraction < 10 ? ".00" : fraction < 100 ? ".0" : ".")
        appendNumber(fraction)
        if let id {
            append(",\"id\":")
            appendNumber(id)
        }
        if let scope {
            append(",\"s\":\"")
            append(scope)
            append("\"")
        }
        if bindToEnclosing { append(",\"bp\":\"e\"") }
        if !args.isEmpty {
            append(",\"args\":")
            appendObject(args)
        }
        append("}")
    }

    /// Ends the JSON object and hands what is left of it to `emit`.
    consuming func finish(to emit: (UnsafeRawBufferPointer) -> Void) {
        append("\n]}\n")
        flush(to: emit)
    }

    private var hasEvents = false

    private mutating func startLine() {
        if hasEvents { append(",\n") }
        hasEvents = true
    }

    /// `args` as a JSON object, keys in order.
    private mutating func appendObject(_ args: Arguments) {
        append("{")
        var first = true
        for pair in args.pairs {
            if !first { append(",") }
            first = false
            bytes.append(UInt8(ascii: "\""))
            append(pair.key)
            append("\":")
            appendValue(pair.value)
        }
        append("}")
    }

    private mutating func appendValue(_ value: Value) {
        switch value {
        case .text(let text): appendQuoted(text)
        case .number(let number): appendNumber(number)
        case .quoted(let json): json.withUnsafeBufferPointer(bytes.append)
        }
    }

    private mutating func append(_ text: StaticString) {
        bytes.append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func appendQuoted(_ text: String) {
        var text = text
        // Most text needs no escape: its bytes go straight in, with no quoted copy made first.
        let copied = text.withUTF8 { utf8 in
            guard !JSONText.needsEscape(utf8) else { return false }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
        if !copied {
            var quoted = JSONText.quoted(text)
            quoted.withUTF8(bytes.append)
        }
    }

    private mutating func appendNumber(_ number: UInt64) {
        guard number >= 10 else {
            bytes.append(UInt8(ascii: "0") + UInt8(number))
            return
        }
        // The digits from the last, into the end of a buffer, then appended at once.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = number, start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// The bytes written since the last flush, in memory of its own: appending a literal or a
    /// number a dozen times per event costs a copy each, with none of an array's bookkeeping.
    private final class Bytes {
        // Only the writer that made it uses it, one call at a time.
        @exclusivity(unchecked) private(set) var start: UnsafeMutablePointer<UInt8>
        @exclusivity(unchecked) private var capacity: Int
        @exclusivity(unchecked) var count = 0

        init(capacity: Int) {
            start = .allocate(capacity: capacity)
            self.capacity = capacity
        }

        deinit { start.deallocate() }

        func append(_ byte: UInt8) {
            if count == capacity { grow(toHold: count + 1) }
            start[count] = byte
            count += 1
        }

        func append(_ source: UnsafeBufferPointer<UInt8>) {
            guard let base = source.baseAddress, !source.isEmpty else { return }
            if count + source.count > capacity { grow(toHold: count + source.count) }
            (start + count).update(from: base, count: source.count)
            count += source.count
        }

        private func grow(toHold needed: Int) {
            let larger = max(needed, 2 * capacity)
            let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
            moved.update(from: start, count: count)
            start.deallocate()
            (start, capacity) = (moved, larger)
        }
    }
}
