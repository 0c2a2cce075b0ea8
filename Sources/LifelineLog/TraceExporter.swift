import Foundation

/// Writes any log as the documented JSON Lines form (log format version 5): what
/// `lifeline export` prints.
///
/// A version 6 or 7 log's lines are kept in file order: its JSON lines as they are, its binary
/// records as the event lines a JSON recorder writes (times converted to nanoseconds), its
/// header as the version 5 header, without the `clock` lines and without the damage a crash
/// left (torn records, unwritten bytes). So a recording made in binary and exported has the
/// bytes the same recording made in JSON Lines would have. A log of JSON lines is written as
/// it is, without the zero bytes a crash left at its end.
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
        guard header.format == .binary else { return Data(bytes) }
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
                // The reader reads the last line if it can, and skips it otherwise: left
                // unterminated, it reads the same way again.
                try? emit(UnsafeBufferPointer(rebasing: bytes[range]), number: number, terminated: false)
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
}

extension TraceHeader {
    /// The header a JSON recorder writes for the same recording.
    var asJSONLines: TraceHeader {
        TraceHeader(
            version: Self.jsonLinesVersion, processID: processID, processName: processName, startedAt: startedAt,
            clockSource: clockSource, clockOrigin: clockOrigin, valueDescriptionLimit: valueDescriptionLimit
        )
    }
}
