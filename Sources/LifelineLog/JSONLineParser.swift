/// Parses one line of a log as strict JSON (RFC 8259), straight from its bytes.
///
/// It is the reader's hot path: one pass, no Foundation objects, no bridging of numbers. It
/// accepts exactly what the JSON grammar accepts, rejects invalid UTF-8 in strings, lone
/// surrogate escapes and trailing content, and stops at ``maximumDepth`` nested arrays or
/// objects so that a hostile line can't exhaust the stack.
struct JSONLineParser {
    /// Why a line is not JSON, in words, with the byte offset where parsing stopped.
    struct Failure: Error {
        let reason: String
        let offset: Int
    }

    /// The deepest nesting of arrays and objects a line may have. Lifeline's own lines nest
    /// three deep.
    static let maximumDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The JSON value `bytes` hold, which must be all of them but surrounding whitespace.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONValue {
        var parser = JSONLineParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("unexpected text after the value") }
        return value
    }

    private mutating func value() throws(Failure) -> JSONValue {
        guard index < bytes.count else { throw failure("the line ends where a value should be") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected character")
        }
    }

    private mutating func object() throws(Failure) -> JSONValue {
        try enterNesting()
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if consume(UInt8(ascii: "}")) {
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = try string()
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw failure("expected ':' after a key") }
            skipWhitespace()
            members.append((key, try value()))
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "}")) else { throw failure("expected ',' or '}'") }
            depth -= 1
            return .object(members)
        }
    }

    private mutating func array() throws(Failure) -> JSONValue {
        try enterNesting()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) {
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value())
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "]")) else { throw failure("expected ',' or ']'") }
            depth -= 1
            return .array(elements)
        }
    }

    private mutating func enterNesting() throws(Failure) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("nested more than \(Self.maximumDepth) deep") }
    }

    /// A string, from its opening quote to past its closing one.
    private mutating func string() throws(Failure) -> String {
        index += 1
        let start = index
        // The common case: no escapes, so the string is the bytes between the quotes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try validated(UnsafeBufferPointer(rebasing: bytes[start..<index]), at: start)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw failure("a control character inside a string") }
            index += 1
        }
        var unescaped = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try unescaped.withUnsafeBufferPointer { buffer throws(Failure) in try validated(buffer, at: start) }
            case UInt8(ascii: "\\"):
                index += 1
                try escape(into: &unescaped)
            case ..<0x20:
                throw failure("a control character inside a string")
            default:
                unescaped.append(byte)
                index += 1
            }
        }
        throw failure("a string that does not end")
    }

    /// One escape sequence, after its backslash.
    private mutating func escape(into output: inout [UInt8]) throws(Failure) {
        guard index < bytes.count else { throw failure("a string that does not end") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hexQuad()
            if (0xD800..<0xDC00).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("a lone surrogate escape")
                }
                index += 2
                let low = try hexQuad()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw failure("a lone surrogate escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("an escape that is not a Unicode scalar") }
            output.append(contentsOf: UTF8.encode(unicode)!)
        default:
            throw failure("an unknown escape")
        }
    }

    private mutating func hexQuad() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("a \\u escape with fewer than four digits") }
        var scalar: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a \\u escape with a non-hexadecimal digit")
            }
            scalar = scalar << 4 | UInt32(digit)
            index += 1
        }
        return scalar
    }

    private func validated(_ utf8: UnsafeBufferPointer<UInt8>, at offset: Int) throws(Failure) -> String {
        guard let text = String(validating: utf8, as: UTF8.self) else {
            throw Failure(reason: "a string that is not valid UTF-8", offset: offset)
        }
        return text
    }

    private mutating func number() throws(Failure) -> JSONValue {
        let start = index
        let isNegative = bytes[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number without digits") }
        var magnitude: UInt64 = 0
        var overflowed = false
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
                overflowed = overflowed || overflow1 || overflow2
                magnitude = sum
                index += 1
            }
        }
        var isIntegral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isIntegral = false
            index += 1
            try digits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isIntegral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            try digits()
        }
        if isIntegral && !overflowed {
            if !isNegative { return .unsigned(magnitude) }
            if magnitude == 0 { return .unsigned(0) }
            if magnitude <= UInt64(Int64.max) { return .negative(-Int64(magnitude)) }
            if magnitude == UInt64(Int64.max) + 1 { return .negative(Int64.min) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let number = Double(text), number.isFinite else { throw Failure(reason: "a number out of range", offset: start) }
        return .fraction(number)
    }

    private mutating func digits() throws(Failure) {
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number with a missing digit") }
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("unexpected character") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw failure("unexpected character")
        }
        index += count
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func failure(_ reason: String) -> Failure {
        Failure(reason: reason, offset: index)
    }
}
