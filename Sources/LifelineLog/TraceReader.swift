import Foundation

/// Reads a Lifeline log back into a ``Trace``: JSON Lines (versions 1 to 5, 8 and 10) or
/// binary event records between JSON lines (versions 6, 7, 9 and 11), told apart by the
/// header's version.
///
/// The reader tolerates what a crash or kill leaves behind (a truncated last line, a log with
/// no end record, unwritten zero bytes, an object, thread or queue whose declaration was lost,
/// which it reads as one of unknown type) and reports it in ``Trace/damage``, as it does a log
/// holding fewer events than its end record counts. Anything else (bad JSON, an unknown
/// version, a missing field, an object declared twice differently, a second end record, UTF-16
/// text) is a ``TraceReadError`` that names the line.
public enum TraceReader {
    /// Reads the log at `path`: a file, or a pipe or device to read to its end (`/dev/stdin`,
    /// a shell's `<(zcat trace.jsonl.gz)`).
    ///
    /// An input that never ends is refused as soon as it shows it is no log: one whose first
    /// MiB holds no header line (`/dev/urandom`, `/dev/zero`), one with more than 64 MiB of
    /// zero bytes in a row, or a pipe or device that gives more than half the machine's memory.
    ///
    /// - Throws: ``TraceReadError/unreadable(path:reason:)`` saying in words why the file
    ///   cannot be read (it does not exist, it is a directory, permission is denied, it never
    ///   ends), or any error ``read(_:)`` throws.
    public static func read(contentsOf path: String) throws(TraceReadError) -> Trace {
        try read(try LogFile.contents(of: path))
    }

    /// Reads a log held in memory.
    public static func read(_ data: Data) throws(TraceReadError) -> Trace {
        let result = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            Result { () throws(TraceReadError) in try read(raw.bindMemory(to: UInt8.self)) }
        }
        return try result.get()
    }

    private static func read(_ whole: UnsafeBufferPointer<UInt8>) throws(TraceReadError) -> Trace {
        try checkEncoding(whole)
        // A recording that never stopped leaves the rest of its last file chunk zero-filled.
        var length = whole.count
        while length > 0 && whole[length - 1] == 0 { length -= 1 }
        guard length > 0 else { throw .empty }
        let bytes = UnsafeBufferPointer(rebasing: whole[0..<length])
        let endsWithNewline = bytes[length - 1] == UInt8(ascii: "\n")

        var damage: [TraceDamage] = []
        var builder = TraceBuilder()
        var flat = FlatLine()
        var header: TraceHeader?
        var number = 0
        var start = 0
        while start < length {
            let end = lineEnd(in: bytes, from: start)
            number += 1
            var line = UnsafeBufferPointer(rebasing: bytes[start..<end])
            start = end + 1
            guard number > 1 else {
                header = try readHeader(line)
                if header!.format == .binary { return try BinaryLogReader.read(bytes, header: header!, from: start) }
                builder.namesTypes = header!.namesTypes
                builder.recordsHangs = header!.recordsHangs
                // Nearly every line is an event: room for them all at once, not grown a million times.
                builder.reserveCapacity(events: lineCount(in: UnsafeBufferPointer(rebasing: bytes[min(start, length)...])))
                continue
            }
            if !line.isEmpty, memchr(line.baseAddress!, 0, line.count) != nil, let zero = line.lastIndex(of: 0) {
                damage.append(.unwrittenGap(line: number))
                line = UnsafeBufferPointer(rebasing: line[(zero + 1)...])
                if line.isEmpty { continue }
            }
            do throws(TraceReadError) {
                let quick = flat.scan(line) ? try builder.add(flat, number: number) : false
                if !quick { try builder.add(try LineFields(line, number: number)) }
            } catch {
                guard end == length && !endsWithNewline else { throw error }
                damage.append(.truncatedFinalLine(line: number))
            }
        }
        return try builder.finish(header: header!, damage: damage)
    }

    /// Refuses a log that begins as UTF-16 or UTF-32 text, which would otherwise read as a
    /// header that is no JSON, or, after a header in UTF-8, as lines full of zero bytes skipped
    /// as unwritten: 0 events.
    static func checkEncoding(_ whole: UnsafeBufferPointer<UInt8>) throws(TraceReadError) {
        if whole.starts(with: [0xFF, 0xFE]) || whole.starts(with: [0xFE, 0xFF])
            || (whole.count >= 2 && (whole[0] == 0) != (whole[1] == 0)) {
            throw .notALifelineLog(reason: "it is UTF-16 or UTF-32 text; a Lifeline log is UTF-8")
        }
    }

    /// How many lines `bytes` holds, the last one counted whether or not a newline ends it.
    private static func lineCount(in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0
        var start = 0
        while start < bytes.count {
            start = lineEnd(in: bytes, from: start) + 1
            count += 1
        }
        return count
    }

    /// The index of the newline that ends the line starting at `start`, or the end of `bytes`.
    static func lineEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let found = memchr(bytes.baseAddress! + start, Int32(UInt8(ascii: "\n")), bytes.count - start) else {
            return bytes.count
        }
        return bytes.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    static func readHeader(_ line: UnsafeBufferPointer<UInt8>) throws(TraceReadError) -> TraceHeader {
        let fields: LineFields
        do throws(TraceReadError) {
            fields = try LineFields(line, number: 1)
        } catch {
            throw .notALifelineLog(reason: "the first line is not a JSON object")
        }
        guard (try? fields.string("format")) == TraceHeader.formatName else {
            throw .notALifelineLog(reason: "its 'format' is not \"\(TraceHeader.formatName)\"")
        }
        let version = try fields.integer("version")
        guard TraceHeader.readableVersions.contains(version) else {
            throw .unsupportedVersion(found: version, supported: TraceHeader.currentVersion)
        }
        let process = try fields.object("process")
        let clock = try fields.object("clock")
        let values = try fields.optionalObject("values")
        return TraceHeader(
            version: version,
            processID: try process.unsigned("pid"),
            processName: try process.string("name"),
            startedAt: try fields.string("started"),
            clockSource: try clock.string("source"),
            clockOrigin: try clock.unsigned("origin"),
            valueDescriptionLimit: try values?.integer("max_length"),
            ticks: TraceHeader.isBinary(version: version) ? try ticks(fields) : nil
        )
    }

    /// A version 6 header's `ticks`: how its records' times convert to nanoseconds.
    private static func ticks(_ fields: LineFields) throws(TraceReadError) -> TraceHeader.TickReference? {
        guard let ticks = try fields.optionalObject("ticks") else { return nil }
        guard try ticks.string("source") == "tsc" else {
            throw .badField(line: 1, field: "ticks.source", reason: "is not \"tsc\"")
        }
        let perSecond = try ticks.unsigned("per_second")
        guard perSecond > 0 else { throw .badField(line: 1, field: "ticks.per_second", reason: "must be positive") }
        return TraceHeader.TickReference(tsc: try ticks.unsigned("tsc"), time: try ticks.unsigned("t"), perSecond: perSecond)
    }
}
