#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The parts of a version 6, 7 or 9 log after its header, in file order: JSON lines, binary records,
/// and what a crash left (docs/LogFormat.md, "Binary event records").
///
/// Each part begins with a byte that says what it is: `{` a JSON line, up to its newline; a
/// marker byte (`0x80`–`0x9E`) a binary record, as long as its length field says; a zero byte
/// a run of bytes nobody wrote. A record without its commit byte, or a line with zero bytes
/// before its newline, was torn by a kill and is skipped as damage. Parts are numbered like
/// lines, the header being 1, for messages.
enum BinaryLogLayout {
    enum Part {
        /// A complete JSON line, without its newline.
        case line(Range<Int>)
        /// The last part, a JSON line with no newline: whole or cut off, as parsing it shows.
        case unterminatedLine(Range<Int>)
        /// A complete binary record, commit byte checked.
        case record(Range<Int>)
        /// Something skipped: unwritten bytes, a torn record or line, a record cut off by the
        /// end of the file.
        case damage(TraceDamage)
        /// In a version 7 or 9 log, a run of zero bytes between parts: the unused end of a chunk of
        /// a process killed before it stopped recording (an event that took its chunk's space
        /// and wrote nothing of it is lost with it), or damage in a log that was stopped.
        case unwritten(line: Int)
    }

    /// Calls `body` with each part of `bytes` from `start` (just after the header's newline),
    /// and its number. `bytes` ends with its last non-zero byte.
    static func forEachPart(
        in bytes: UnsafeBufferPointer<UInt8>, from start: Int, chunked: Bool = false,
        _ body: (Part, Int) throws(TraceReadError) -> Void
    ) throws(TraceReadError) {
        let length = bytes.count
        var position = start
        var number = 1
        while position < length {
            let first = bytes[position]
            if first == 0 {
                // Bytes reserved and never written: the next part tells where they end.
                while position < length && bytes[position] == 0 { position += 1 }
                if position < length {
                    try body(chunked ? .unwritten(line: number + 1) : .damage(.unwrittenGap(line: number + 1)), number + 1)
                }
                continue
            }
            if chunked && first == BinaryEventRecord.fillerByte {
                // The unused end of a thread's chunk, filled when recording stopped (or when the
                // thread took its next chunk); a kill while filling leaves zeros among it.
                while position < length && (bytes[position] == BinaryEventRecord.fillerByte || bytes[position] == 0) {
                    position += 1
                }
                continue
            }
            number += 1
            if first == UInt8(ascii: "{") {
                let newline = find(UInt8(ascii: "\n"), in: bytes, from: position) ?? length
                if var zero = find(0, in: bytes, from: position, before: newline) {
                    // Torn: the writer stores a line front to back, so the rest is unwritten.
                    try body(.damage(.unwrittenGap(line: number)), number)
                    while zero < length && bytes[zero] == 0 { zero += 1 }
                    position = zero
                    continue
                }
                try body(newline == length ? .unterminatedLine(position..<length) : .line(position..<newline), number)
                position = newline + 1
                continue
            }
            guard BinaryEventRecord.isMarker(first) else {
                throw .malformedLine(
                    line: number, reason: "neither a JSON line nor a binary record: it begins with the byte 0x\(String(first, radix: 16))"
                )
            }
            guard length - position >= 4 else {
                try body(.damage(.truncatedFinalLine(line: number)), number)
                return
            }
            let head = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[position..<(position + 4)]))
            guard let recordLength = BinaryEventRecord.declaredLength(head) else {
                let said = head.loadUnaligned(fromByteOffset: 2, as: UInt16.self).littleEndian
                throw .malformedLine(line: number, reason: "a binary record whose length (\(said) bytes) is not a multiple of 8 of at least 32")
            }
            guard recordLength <= length - position else {
                try body(.damage(.truncatedFinalLine(line: number)), number)
                return
            }
            let end = position + recordLength
            if bytes[end - 1] == BinaryEventRecord.commitByte {
                try body(.record(position..<end), number)
            } else {
                // Killed while writing it: its length was written first, its commit byte last.
                try body(.damage(.unwrittenGap(line: number)), number)
            }
            position = end
        }
    }

    /// Whether the log's records were written in per-thread chunks (versions 7 and 9).
    static func isChunked(_ header: TraceHeader) -> Bool {
        header.format == .binary && header.version >= TraceHeader.chunkedBinaryVersion
    }

    /// Whether `line` is a `clock` line.
    static func isClockLine(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        let prefix: StaticString = "{\"kind\":\"clock\","
        return line.count > prefix.utf8CodeUnitCount
            && memcmp(line.baseAddress!, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0
    }

    /// The event a JSON event line of a version 6 log holds (one the binary form could not
    /// hold), its time converted like a record's; nil for a line that is no event.
    static func eventLine(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, conversion: inout TickConversion
    ) throws(TraceReadError) -> TraceEvent? {
        let prefix: StaticString = "{\"seq\":"
        guard line.count > prefix.utf8CodeUnitCount, memcmp(line.baseAddress!, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0 else {
            return nil
        }
        let event = try TraceBuilder.event(try LineFields(line, number: number))
        return event.timed(conversion.time(ofTicks: event.time))
    }

    /// The calibration point a `clock` line holds.
    static func clockPoint(_ line: UnsafeBufferPointer<UInt8>, number: Int) throws(TraceReadError) -> TickConversion.Point {
        let fields = try LineFields(line, number: number)
        return TickConversion.Point(tsc: try fields.unsigned("tsc"), time: try fields.unsigned("t"))
    }

    /// The conversion of `bytes`' record times to nanoseconds: the header's reference and every
    /// well-formed `clock` line (the reading pass itself rejects the others).
    static func conversion(of bytes: UnsafeBufferPointer<UInt8>, from start: Int, header: TraceHeader) -> TickConversion {
        var clocks: [TickConversion.Point] = []
        if header.ticks != nil {
            try? forEachPart(in: bytes, from: start, chunked: isChunked(header)) { part, number throws(TraceReadError) in
                guard case .line(let range) = part else { return }
                let line = UnsafeBufferPointer(rebasing: bytes[range])
                if isClockLine(line), let point = try? clockPoint(line, number: number) { clocks.append(point) }
            }
        }
        return TickConversion(reference: header.ticks, clocks: clocks)
    }

    private static func find(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int, before end: Int? = nil) -> Int? {
        let end = end ?? bytes.count
        guard start < end, let found = memchr(bytes.baseAddress! + start, Int32(byte), end - start) else { return nil }
        return bytes.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
}
