import Foundation

/// Makes strings from UTF-8 bytes, once per distinct text: a log repeats the same type names,
/// labels and error messages thousands of times, and each repeat then shares the first one's
/// storage instead of allocating its own.
struct TextInterner {
    /// The strings made so far, by the hash of their bytes (``hash(_:)``). A hash that two texts share keeps
    /// the first; the other is made afresh each time.
    private var strings: [Int: String] = [:]

    /// The text `utf8` holds; `nil` when it is not UTF-8.
    mutating func text(_ utf8: UnsafeBufferPointer<UInt8>) -> String? {
        // Up to 15 bytes a string is stored inline: making it costs less than looking it up.
        guard utf8.count > 15 else { return String(validating: utf8, as: UTF8.self) }
        let hash = Self.hash(UnsafeRawBufferPointer(utf8))
        if let known = strings[hash] {
            var copy = known
            let same = copy.withUTF8 { stored in
                stored.count == utf8.count && memcmp(stored.baseAddress!, utf8.baseAddress!, utf8.count) == 0
            }
            if same { return known }
            return String(validating: utf8, as: UTF8.self)
        }
        guard let made = String(validating: utf8, as: UTF8.self) else { return nil }
        strings[hash] = made
        return made
    }

    /// A quick hash of 16 bytes or more, eight at a time (the last eight overlapping the word
    /// before when the count is no multiple of eight): a type name a hundred bytes long is
    /// looked up at every object line, and a collision only costs a string made afresh.
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hash = UInt64(bytes.count)
        var offset = 0
        while offset + 8 < bytes.count {
            hash = ((hash << 5 | hash >> 59) ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x517C_C1B7_2722_0A95
            offset += 8
        }
        hash = ((hash << 5 | hash >> 59) ^ bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)) &* 0x517C_C1B7_2722_0A95
        return Int(truncatingIfNeeded: hash ^ hash >> 29)
    }
}
