import Foundation

/// One line of a log read the quick way: a flat JSON object whose values are plain strings,
/// non-negative integers, `true`, `false` or `null`, each kept as where it sits in the line.
///
/// Event and object lines, nearly all of a log, have this shape. Reading them through
/// ``JSONLineParser`` builds a tree, a `String` per key and a `String` per value; reading them
/// here builds nothing but the strings the trace keeps. ``scan(_:)`` accepts a line only when
/// ``JSONLineParser`` would parse it to the same members, and the typed accessors answer only
/// what ``LineFields`` would answer the same way; anything else (escapes, nesting, other
/// numbers, a value of the wrong type) makes them return `nil`, and the reader reads the line
/// again through ``LineFields``, which says what is wrong with it.
struct FlatLine {
    /// A key the reader asks for. The last member with a key counts, as in ``LineFields``.
    enum Key: Int, CaseIterable {
        case seq, t, tid, queue, phase, kind, site, publisher, subscriber, subscription, demand, value, completion,
             error, object, evidence, aliveAt, label, id, role, type, short, source, function, lifetime, joined

        /// The key as the log writes it.
        var name: String {
            switch self {
            case .aliveAt: return "alive_at"
            default: return String(describing: self)
            }
        }
    }

    /// A member's value, by where it is in the line.
    enum Value {
        case absent
        case null
        case bool(Bool)
        case unsigned(UInt64)
        /// A string with no escapes: its bytes between the quotes, not yet checked as UTF-8.
        case string(start: Int, end: Int)
    }

    private(set) var bytes = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    /// The keys the line holds, one bit per ``Key`` raw value: a key whose bit is clear is
    /// absent whatever ``Tables/values`` still holds from an earlier line.
    private var present: UInt32 = 0
    /// What the scan writes at every member and looks up at every key, in memory of its own:
    /// written without a check for sole ownership at each member. Copies of a line share it,
    /// so a copy reads what the last scan by any of them found; the reader keeps one line.
    private let tables: Tables
    /// The multiplier of ``slot(low:high:)`` that gives every key a slot of its own.
    private let slotMultiplier: UInt64

    /// The tables of a ``FlatLine``, each as many entries as it needs and freed with it.
    private final class Tables {
        /// By ``Key`` raw value, the value the last line that held the key gave it.
        let values = UnsafeMutablePointer<Value>.allocate(capacity: Key.allCases.count)
        /// By a key's raw value (or ``lineStart``), the raw value of the key that last followed
        /// it (keys the reader does not ask for left out); ``lineStart`` itself, which is no
        /// key, until then.
        let nextKeys = UnsafeMutablePointer<UInt8>.allocate(capacity: FlatLine.lineStart + 1)
        /// By ``Key`` raw value, the key as a line writes it before its value, `"name":`, in
        /// two words with the masks that keep its bytes, and the count of those bytes (at most
        /// sixteen).
        let keyPatterns = UnsafeMutablePointer<(first: UInt64, firstMask: UInt64, second: UInt64, secondMask: UInt64, count: Int, key: Key)>
            .allocate(capacity: Key.allCases.count)
        /// Every key's name packed into two words (``packed(_:from:count:)``), in the slot the
        /// packed words hash to (``slot(low:high:)``); an empty slot packs no name.
        let keySlots = UnsafeMutablePointer<(low: UInt64, high: UInt64, key: Key?)>.allocate(capacity: FlatLine.slotCount)

        init() {
            values.initialize(repeating: .absent, count: Key.allCases.count)
            nextKeys.initialize(repeating: UInt8(FlatLine.lineStart), count: FlatLine.lineStart + 1)
            keyPatterns.initialize(repeating: (0, 0, 0, 0, 0, .seq), count: Key.allCases.count)
            keySlots.initialize(repeating: (0, 0, nil), count: FlatLine.slotCount)
        }

        deinit {
            values.deallocate()
            nextKeys.deallocate()
            keyPatterns.deallocate()
            keySlots.deallocate()
        }
    }

    init() {
        let names = Key.allCases.map { key in
            let name = Array(key.name.utf8)
            let words = name.withUnsafeBufferPointer { FlatLine.packed($0, from: 0, count: name.count) }
            return (low: words.low, high: words.high, key: key)
        }
        // The first of a fixed sequence of odd multipliers under which no two names share a
        // slot: the same one every run.
        var multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        while Set(names.map { Self.slot(low: $0.low, high: $0.high, multiplier: multiplier) }).count < names.count {
            multiplier = multiplier &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 | 1
        }
        tables = Tables()
        for name in names { tables.keySlots[Self.slot(low: name.low, high: name.high, multiplier: multiplier)] = name }
        slotMultiplier = multiplier
        for key in Key.allCases {
            let member = Array("\"\(key.name)\":".utf8)
            precondition(member.count <= 16, "every key fits in two words with its quotes and colon")
            var first: UInt64 = 0, firstMask: UInt64 = 0, second: UInt64 = 0, secondMask: UInt64 = 0
            for (offset, byte) in member.enumerated() {
                if offset < 8 {
                    first |= UInt64(byte) << (8 * offset)
                    firstMask |= 0xFF << (8 * offset)
                } else {
                    second |= UInt64(byte) << (8 * (offset - 8))
                    secondMask |= 0xFF << (8 * (offset - 8))
                }
            }
            tables.keyPatterns[key.rawValue] = (first, firstMask, second, secondMask, member.count, key)
        }
    }

    private static let slotCount = 128

    /// The slot of packed words among ``slotCount``.
    private static func slot(low: UInt64, high: UInt64, multiplier: UInt64) -> Int {
        Int(truncatingIfNeeded: ((low ^ (high &* 0xC2B2_AE3D_27D4_EB4F)) &* multiplier) >> 57)
    }

    /// Reads `line`; `false` when it is not a flat object of the values ``Value`` holds (or not
    /// JSON at all).
    mutating func scan(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes = line
        var found: UInt32 = 0
        defer { present = found }
        return scanMembers(present: &found)
    }

    /// The members of ``bytes`` into ``Tables/values``, their keys into `present`. Each key is
    /// first tried as the one that followed the previous key last time (``Tables/nextKeys``):
    /// the recorder writes every kind of line with its keys in one order, so the key is most
    /// often found by comparing two words with what it must be, `"name":`, rather than by
    /// scanning and hashing it. A key found otherwise becomes the one expected next time.
    private func scanMembers(present: inout UInt32) -> Bool {
        let line = bytes, values = tables.values, nextKeys = tables.nextKeys
        var index = skipWhitespace(from: 0)
        guard index < line.count, line[index] == UInt8(ascii: "{") else { return false }
        index = skipWhitespace(from: index + 1)
        if index < line.count, line[index] == UInt8(ascii: "}") {
            return skipWhitespace(from: index + 1) == line.count
        }
        var previous = Self.lineStart
        while true {
            let key: Key?
            if let expected = expectedKey(at: index, after: previous) {
                key = expected
                index += tables.keyPatterns[expected.rawValue].count
            } else {
                guard index < line.count, line[index] == UInt8(ascii: "\""),
                      let keyEnd = stringEnd(from: index + 1) else { return false }
                key = self.key(from: index + 1, to: keyEnd)
                index = skipWhitespace(from: keyEnd + 1)
                guard index < line.count, line[index] == UInt8(ascii: ":") else { return false }
                index += 1
                if let key { nextKeys[previous] = UInt8(key.rawValue) }
            }
            index = skipWhitespace(from: index)
            guard index < line.count, let (value, valueEnd) = value(at: index) else { return false }
            if let key {
                values[key.rawValue] = value
                present |= 1 << UInt32(key.rawValue)
                previous = key.rawValue
            }
            index = skipWhitespace(from: valueEnd)
            guard index < line.count else { return false }
            if line[index] == UInt8(ascii: ",") {
                index = skipWhitespace(from: index + 1)
                continue
            }
            guard line[index] == UInt8(ascii: "}") else { return false }
            return skipWhitespace(from: index + 1) == line.count
        }
    }

    /// The index in ``Tables/nextKeys`` of the key a line starts with: one past the last key.
    private static var lineStart: Int { Key.joined.rawValue + 1 }

    /// The key that followed `previous` last time, when the bytes at `index` are exactly its
    /// quoted name and a colon; `nil` otherwise (and where fewer than sixteen bytes are left,
    /// or no key has followed `previous` yet).
    private func expectedKey(at index: Int, after previous: Int) -> Key? {
        let candidate = Int(tables.nextKeys[previous])
        guard candidate < Self.lineStart, index + 16 <= bytes.count else { return nil }
        let pattern = tables.keyPatterns[candidate]
        let base = UnsafeRawPointer(bytes.baseAddress! + index)
        let first = base.loadUnaligned(as: UInt64.self), second = base.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        guard first & pattern.firstMask == pattern.first, second & pattern.secondMask == pattern.second else { return nil }
        return pattern.key
    }

    subscript(key: Key) -> Value {
        present & (1 << UInt32(key.rawValue)) == 0 ? .absent : tables.values[key.rawValue]
    }

    /// Whether the line has `key` with a value other than `null`.
    func has(_ key: Key) -> Bool {
        switch self[key] {
        case .absent, .null: return false
        default: return true
        }
    }

    func unsigned(_ key: Key) -> UInt64? {
        guard case .unsigned(let number) = self[key] else { return nil }
        return number
    }

    func id(_ key: Key) -> TraceObjectID? {
        unsigned(key).map(TraceObjectID.init)
    }

    func boolean(_ key: Key) -> Bool? {
        guard case .bool(let flag) = self[key] else { return nil }
        return flag
    }

    /// Whether the value at `key` is a string without escapes.
    func isString(_ key: Key) -> Bool {
        if case .string = self[key] { return true }
        return false
    }

    /// Whether the string at `key` is exactly `text`. Inlined, so that the comparison of a
    /// known number of bytes compiles to a few loads: the reader asks it for every kind.
    @inline(__always)
    func string(_ key: Key, is text: StaticString) -> Bool {
        guard case .string(let start, let end) = self[key], end - start == text.utf8CodeUnitCount else { return false }
        return memcmp(bytes.baseAddress! + start, text.utf8Start, end - start) == 0
    }

    /// The value at `key`, which must be one of `Value`'s raw values.
    func choice<Choice: RawRepresentable & CaseIterable>(_ key: Key, of type: Choice.Type) -> Choice? where Choice.RawValue == String {
        guard case .string(let start, let end) = self[key] else { return nil }
        return Choice.allCases.first { choice in
            var name = choice.rawValue
            return name.withUTF8 { $0.count == end - start && memcmp($0.baseAddress!, bytes.baseAddress! + start, $0.count) == 0 }
        }
    }

    /// The string at `key`, through `interner` so that repeated text is stored once; `nil` when
    /// it is absent, not a string or not UTF-8.
    func string(_ key: Key, interner: inout TextInterner) -> String? {
        guard case .string(let start, let end) = self[key] else { return nil }
        return interner.text(UnsafeBufferPointer(rebasing: bytes[start..<end]))
    }

    /// The string at `key` as ``LineFields/optionalString(_:)`` reads it: `.some(nil)` when it
    /// is absent or `null`, `nil` when it is something else.
    func optionalString(_ key: Key, interner: inout TextInterner) -> String?? {
        switch self[key] {
        case .absent, .null: return .some(nil)
        case .string: return string(key, interner: &interner).map { .some($0) }
        default: return nil
        }
    }

    /// The string at `key`, validated but not interned (event values, which rarely repeat).
    func uniqueString(_ key: Key) -> String?? {
        switch self[key] {
        case .absent, .null: return .some(nil)
        case .string(let start, let end):
            return String(validating: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self).map { .some($0) }
        default: return nil
        }
    }

    /// The demand at `key`: a count up to `Int.max` or `"unlimited"`.
    func demand(_ key: Key) -> TraceDemand? {
        if string(key, is: "unlimited") { return .unlimited }
        guard let count = unsigned(key), count <= UInt64(Int.max) else { return nil }
        return .max(Int(count))
    }

    // MARK: Scanning

    private func key(from start: Int, to end: Int) -> Key? {
        // Every key is 1 to 15 bytes long; packed with its length, no two pack the same.
        let count = end - start
        guard count < 16 else { return nil }
        let (low, high) = start + 16 <= bytes.count
            ? Self.packedWords(UnsafeRawPointer(bytes.baseAddress! + start), count: count)
            : Self.packed(bytes, from: start, count: count)
        let candidate = tables.keySlots[Self.slot(low: low, high: high, multiplier: slotMultiplier)]
        return candidate.low == low && candidate.high == high ? candidate.key : nil
    }

    /// `count` (at most 15) bytes from `start`, packed into two words, the count in the top
    /// byte of the second, so that names of different lengths never pack the same.
    private static func packed(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, count: Int) -> (low: UInt64, high: UInt64) {
        var low: UInt64 = 0, high = UInt64(count) << 56
        for offset in 0..<count {
            let byte = UInt64(bytes[start + offset])
            if offset < 8 { low |= byte << (8 * offset) } else { high |= byte << (8 * (offset - 8)) }
        }
        return (low, high)
    }

    /// What ``packed(_:from:count:)`` packs, read as two words from `start`, where at least
    /// sixteen bytes can be read: the bytes past `count` masked off.
    private static func packedWords(_ start: UnsafeRawPointer, count: Int) -> (low: UInt64, high: UInt64) {
        let first = start.loadUnaligned(as: UInt64.self), second = start.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        func prefix(_ word: UInt64, bytes: Int) -> UInt64 {
            bytes >= 8 ? word : bytes <= 0 ? 0 : word & (1 << UInt64(8 * bytes) - 1)
        }
        return (prefix(first, bytes: count), prefix(second, bytes: count - 8) | UInt64(count) << 56)
    }

    /// The value starting at `index` and the index past it.
    private func value(at index: Int) -> (Value, Int)? {
        switch bytes[index] {
        case UInt8(ascii: "\""):
            guard let end = stringEnd(from: index + 1) else { return nil }
            return (.string(start: index + 1, end: end), end + 1)
        case UInt8(ascii: "0"):
            // JSON allows no digit after a leading zero, and `0.5` or `0e1` are no integers.
            if index + 1 < bytes.count, Self.continuesNumber(bytes[index + 1]) { return nil }
            return (.unsigned(0), index + 1)
        case UInt8(ascii: "1")...UInt8(ascii: "9"):
            var number: UInt64 = 0
            var end = index
            // Nineteen digits always fit in 64 bits: no overflow to check up to there, and the
            // digits are counted and added up in one pass.
            let unchecked = min(bytes.count, index + 19)
            while end < unchecked {
                let digit = bytes[end] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                number = number &* 10 &+ UInt64(digit)
                end += 1
            }
            while end < bytes.count, bytes[end] >= UInt8(ascii: "0"), bytes[end] <= UInt8(ascii: "9") {
                let (times10, overflow1) = number.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[end] - UInt8(ascii: "0")))
                guard !overflow1 && !overflow2 else { return nil }
                number = sum
                end += 1
            }
            if end < bytes.count, Self.continuesNumber(bytes[end]) { return nil }
            return (.unsigned(number), end)
        case UInt8(ascii: "t"): return literal("true", at: index).map { (.bool(true), $0) }
        case UInt8(ascii: "f"): return literal("false", at: index).map { (.bool(false), $0) }
        case UInt8(ascii: "n"): return literal("null", at: index).map { (.null, $0) }
        default: return nil
        }
    }

    private static func continuesNumber(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return true
        default: return false
        }
    }

    /// The index of the quote that closes a string starting at `start`; `nil` for an escape,
    /// a control character, no closing quote, or bytes that are not UTF-8 (checked only when
    /// there is a byte beyond ASCII, which Lifeline's own lines seldom have).
    private func stringEnd(from start: Int) -> Int? {
        var index = start
        var isASCII = true
        // Eight bytes at a time, up to the first special byte: type names run long, and most
        // strings end at a quote found within a word.
        let base = UnsafeRawPointer(bytes.baseAddress!)
        while index + 8 <= bytes.count {
            let special = Self.specialBytes(base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            if special == 0 {
                index += 8
                continue
            }
            index += special.trailingZeroBitCount / 8
            // Every byte before it is ASCII and no quote.
            if bytes[index] == UInt8(ascii: "\"") { return index }
            break
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                guard isASCII || String(validating: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self) != nil
                else { return nil }
                return index
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            if byte >= 0x80 { isASCII = false }
            index += 1
        }
        return nil
    }

    /// Whether any of the eight bytes of `word` is a quote, a backslash, a control character
    /// or beyond ASCII: exact, with no false answer either way.
    static func hasSpecialByte(_ word: UInt64) -> Bool {
        specialBytes(word) != 0
    }

    /// The top bit of each byte of `word` that ``hasSpecialByte(_:)`` finds special, exact up
    /// to the first special byte (the lowest, in memory order): a borrow only runs upward
    /// from a special byte, so bytes above it may be flagged wrongly, never those below.
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        // With no byte beyond ASCII, a byte below 0x20 is one that subtracting 0x20 borrows from.
        return word & highs | zeroBytes(word ^ (ones &* 0x22)) | zeroBytes(word ^ (ones &* 0x5C))
            | (word &- ones &* 0x20) & ~word & highs
    }

    private func literal(_ word: StaticString, at index: Int) -> Int? {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count, memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0 else { return nil }
        return index + count
    }

    private func skipWhitespace(from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return index
            }
        }
        return index
    }
}
