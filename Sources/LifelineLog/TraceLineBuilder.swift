/// Writes one JSON line into caller-provided memory, without allocating.
///
/// The recorder builds every line in a temporary buffer sized by
/// ``TraceLineEncoder/capacity(for:)``, so the hot path never touches the heap.
struct TraceLineBuilder {
    private let base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0

    /// A builder writing into `buffer`, which must hold the whole line: the writes are not
    /// bounds-checked (callers size it with ``capacity(forString:)`` and fixed allowances).
    init(buffer: UnsafeMutableRawBufferPointer) {
        base = buffer.baseAddress!.bindMemory(to: UInt8.self, capacity: buffer.count)
    }

    /// The bytes written so far.
    var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base, count: count)
    }

    @inline(__always)
    mutating func byte(_ value: UInt8) {
        base[count] = value
        count += 1
    }

    @inline(__always)
    mutating func raw(_ text: StaticString) {
        (base + count).update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        count += text.utf8CodeUnitCount
    }

    mutating func number(_ value: UInt64) {
        // The digit count from the bit length: 2^b has b·log10(2) digits, one more at most.
        let bits = 64 - (value | 1).leadingZeroBitCount
        let estimate = (bits &* 1233) >> 12
        let length = max(1, value >= Self.powersOfTen[estimate] ? estimate + 1 : estimate)
        // Two digits at a time from the end, through the table of the pairs "00"…"99".
        var rest = value
        var end = base + count + length
        Self.digitPairs.withUTF8Buffer { pairs in
            while rest >= 100 {
                let pair = Int(rest % 100) * 2
                rest /= 100
                end -= 2
                end[0] = pairs[pair]
                end[1] = pairs[pair + 1]
            }
            if rest >= 10 {
                let pair = Int(rest) * 2
                end -= 2
                end[0] = pairs[pair]
                end[1] = pairs[pair + 1]
            } else {
                end -= 1
                end[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
            }
        }
        count += length
    }

    /// 10^0 … 10^19.
    private static let powersOfTen: [UInt64] = (0..<20).map { (0..<$0).reduce(1) { value, _ in value * 10 } }

    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    mutating func number(_ value: Int) {
        if value < 0 {
            byte(UInt8(ascii: "-"))
            number(value.magnitude.toUInt64)
        } else {
            number(UInt64(value))
        }
    }

    mutating func demand(_ demand: TraceDemand) {
        switch demand {
        case .max(let count): number(count)
        case .unlimited: raw("\"unlimited\"")
        }
    }

    /// Writes `text` as a quoted JSON string. Control characters are escaped, so the line
    /// never breaks, whatever the text holds.
    mutating func string(_ text: String) {
        byte(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            // Runs that need no escape (all of a type name, nearly all of a label) are copied
            // whole.
            var runStart = 0
            for (index, unit) in utf8.enumerated()
            where unit < 0x20 || unit == 0x7F || unit == UInt8(ascii: "\"") || unit == UInt8(ascii: "\\") {
                append(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                switch unit {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case UInt8(ascii: "\n"): raw("\\n")
                case UInt8(ascii: "\r"): raw("\\r")
                case UInt8(ascii: "\t"): raw("\\t")
                default:
                    raw("\\u00")
                    byte(Self.hexDigits[Int(unit >> 4)])
                    byte(Self.hexDigits[Int(unit & 0xF)])
                }
            }
            append(UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        byte(UInt8(ascii: "\""))
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// The most bytes ``string(_:)`` can write for `text`.
    static func capacity(forString text: String) -> Int {
        text.utf8.count * 6 + 2
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}

private extension UInt {
    var toUInt64: UInt64 { UInt64(self) }
}
