/// Writes one JSON line into caller-provided memory, without allocating.
///
/// The recorder builds every line in a temporary buffer sized by
/// ``TraceLineEncoder/capacity(for:)``, so the hot path never touches the heap.
struct TraceLineBuilder {
    private let buffer: UnsafeMutableRawBufferPointer
    private(set) var count = 0

    init(buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    /// The bytes written so far.
    var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[0..<count])
    }

    mutating func byte(_ value: UInt8) {
        buffer[count] = value
        count += 1
    }

    mutating func raw(_ text: StaticString) {
        let source = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        UnsafeMutableRawBufferPointer(rebasing: buffer[count...]).copyMemory(from: source)
        count += source.count
    }

    mutating func number(_ value: UInt64) {
        guard value > 0 else { return byte(UInt8(ascii: "0")) }
        var digits = 0
        var rest = value
        while rest > 0 { digits += 1; rest /= 10 }
        rest = value
        for index in stride(from: count + digits - 1, through: count, by: -1) {
            buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        count += digits
    }

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
            for unit in utf8 {
                switch unit {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case UInt8(ascii: "\n"): raw("\\n")
                case UInt8(ascii: "\r"): raw("\\r")
                case UInt8(ascii: "\t"): raw("\\t")
                case 0..<0x20, 0x7F:
                    raw("\\u00")
                    byte(Self.hexDigits[Int(unit >> 4)])
                    byte(Self.hexDigits[Int(unit & 0xF)])
                default: byte(unit)
                }
            }
        }
        byte(UInt8(ascii: "\""))
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
