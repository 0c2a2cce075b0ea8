import Foundation

/// Writes any log as the documented JSON Lines form (log format version 10; 8 or 5 for a log
/// recorded before hang or type lines): what `lifeline export` prints.
///
/// A version 6, 7, 9 or 11 log's lines are kept in file order: its JSON lines as they are,
/// its binary records as the event lines a JSON recorder writes (times converted to
/// nanoseconds), its header as the version 5 header (version 8 for a version 9 log, 10 for a
/// version 11 log), without the `clock` lines and without the damage a crash left (torn
/// records, unwritten bytes). So a recording made in binary and exported has the bytes the
/// same recording made in JSON Lines would have.
/// A log of JSON lines is written line by line as the reader reads it: without the zero bytes a
/// crash left and the torn line before them, and with its last line only when that line is a
/// JSON object (a kill cuts it short of one). Either way every line written is a JSON object,
/// and the export reads back with the events the log read with; damage it still shows (an
/// object whose declaration was lost, a log with no end record) is left for the reader of the
/// export to report again.
public enum TraceExporter {
    /// Reads the log at `path` (once: it can be a pipe) and returns what ``TraceReader`` reads
    /// of it, with its damage, and its JSON Lines form.
    ///
    /// - Throws: What ``TraceReader/read(contentsOf:)`` throws: a log the reader refuses is
    ///   not exported.
    public static func export(contentsOf path: String) throws(TraceReadError) -> (trace: Trace, jsonLines: Data) {
        let data = try LogFile.contents(of: path)
        let trace = try TraceReader.read(data)
        return (trace, try jsonLines(of: data))
    }

    /// The JSON Lines form of the log `data` holds. Read the log with ``TraceReader`` first:
    /// this checks only what it needs, and skips damage without saying so.
    public static func jsonLines(of data: Data) throws(TraceReadError) -> Data {
        let result = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            Result { () throws(TraceReadError) in try jsonLines(of: raw.bindMemory(to: UInt8.self)) }
        }
        return try result.get()
    }

    private static func jsonLines(of whole: UnsafeBufferPointer<UInt8>) throws(TraceReadError) -> Data {
        var length = whole.count
        while length > 0 && whole[length - 1] == 0 { length -= 1 }
        guard length > 0 else { throw .empty }
        let bytes = UnsafeBufferPointer(rebasing: whole[0..<length])
        let headerEnd = TraceReader.lineEnd(in: bytes, from: 0)
        let header = try TraceReader.readHeader(UnsafeBufferPointer(rebasing: bytes[0..<headerEnd]))
        guard header.format == .binary else { return acceptedLines(of: bytes, headerEnd: headerEnd) }
        var output = Data(capacity: length * 3)
        TraceLineEncoder.withLine(for: header.asJSONLines) { output.append(contentsOf: $0) }
        let start = min(headerEnd + 1, length)
        var conversion = BinaryLogLayout.conversion(of: bytes, from: start, header: header)
        func emit(_ line: UnsafeBufferPointer<UInt8>, number: Int, terminated: Bool) throws(TraceReadError) {
            if BinaryLogLayout.isClockLine(line) {
                _ = try BinaryLogLayout.clockPoint(line, number: number)
                return
            }
            if let event = try BinaryLogLayout.eventLine(line, number: number, conversion: &conversion) {
                TraceLineEncoder.withLine(for: event) { output.append(contentsOf: terminated ? $0 : UnsafeRawBufferPointer(rebasing: $0.dropLast())) }
                return
            }
            output.append(line)
            if terminated { output.append(UInt8(ascii: "\n")) }
        }
        let chunked = BinaryLogLayout.isChunked(header)
        try BinaryLogLayout.forEachPart(in: bytes, from: start, chunked: chunked) { part, number throws(TraceReadError) in
            switch part {
            case .line(let range):
                try emit(UnsafeBufferPointer(rebasing: bytes[range]), number: number, terminated: true)
            case .unterminatedLine(let range):
                // A line a kill cut is no JSON object, and left out. One that is, the reader reads
                // if it can and skips otherwise: left unterminated, it reads the same way again.
                let line = UnsafeBufferPointer(rebasing: bytes[range])
                if (try? LineFields(line, number: number)) != nil {
                    try? emit(line, number: number, terminated: false)
                }
            case .record(let range):
                let event = try BinaryEventRecord.decode(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range])), number: number)
                TraceLineEncoder.withLine(for: event.timed(conversion.time(ofTicks: event.time))) { output.append(contentsOf: $0) }
            case .damage, .unwritten:
                // Reading the log first said whether these are damage, and refused it if so.
                break
            }
        }
        return output
    }

    /// The lines of a JSON Lines log that the reader reads: what is left of a line after the
    /// zero bytes in it (the rest of a torn line is unwritten, the bytes after the last zero
    /// begin the next line), and a last line without its newline only when it is a JSON
    /// object, still without it (the reader reads it if it can, and skips it otherwise, again).
    private static func acceptedLines(of bytes: UnsafeBufferPointer<UInt8>, headerEnd: Int) -> Data {
        var output = Data(capacity: bytes.count + 1)
        output.append(UnsafeBufferPointer(rebasing: bytes[..<headerEnd]))
        output.append(UInt8(ascii: "\n"))
        var start = headerEnd + 1
        var number = 1
        while start < bytes.count {
            let end = TraceReader.lineEnd(in: bytes, from: start)
            number += 1
            var line = UnsafeBufferPointer(rebasing: bytes[start..<end])
            start = end + 1
            if !line.isEmpty, memchr(line.baseAddress!, 0, line.count) != nil, let zero = line.lastIndex(of: 0) {
                line = UnsafeBufferPointer(rebasing: line[(zero + 1)...])
            }
            if line.isEmpty { continue }
            output.append(line)
            if end < bytes.count {
                output.append(UInt8(ascii: "\n"))
            } else if (try? LineFields(line, number: number)) == nil {
                output.removeLast(line.count)
            }
        }
        return output
    }
}

extension TraceHeader {
    /// The header a JSON recorder writes for the same recording: version 10 for a log that may
    /// hold hang lines, 8 for one with type lines, 5 for one without.
    var asJSONLines: TraceHeader {
        TraceHeader(
            version: recordsHangs ? Self.jsonLinesVersion : namesTypes ? Self.typedJSONLinesVersion : Self.untypedJSONLinesVersion, processID: processID, processName: processName, startedAt: startedAt,
            clockSource: clockSource, clockOrigin: clockOrigin, valueDescriptionLimit: valueDescriptionLimit
        )
    }
}
