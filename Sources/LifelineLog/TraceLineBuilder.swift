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
        // Digits come out last first; write them from the end of a 20-byte window, the most
        // a UInt64 needs, then move them into place.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let length = withUnsafeMutableBytes(of: &digits) { window in
            var index = 20
            var rest = value
            repeat {
                index -= 1
                window[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            UnsafeMutableRawBufferPointer(rebasing: buffer[count...])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: window[index..<20]))
            return 20 - index
        }
        count += length
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
