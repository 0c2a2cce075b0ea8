import Foundation

/// Reads a Lifeline log back into a ``Trace``.
///
/// The reader tolerates what a crash or kill leaves behind (a truncated last line, a log with
/// no end record, unwritten zero bytes) and reports it in ``Trace/damage``, as it does a log
/// holding fewer events than its end record counts. Anything else (bad JSON, an unknown
/// version, a missing field, an undeclared object, an object declared twice differently, a
/// second end record, UTF-16 text) is a ``TraceReadError`` that names the line.
public enum TraceReader {
    /// Reads the log at `path`: a file, or a pipe or device to read to its end (`/dev/stdin`,
    /// a shell's `<(zcat trace.jsonl.gz)`).
    ///
    /// - Throws: ``TraceReadError/unreadable(path:reason:)`` saying in words why the file
    ///   cannot be read (it does not exist, it is a directory, permission is denied), or any
    ///   error ``read(_:)`` throws.
    public static func read(contentsOf path: String) throws(TraceReadError) -> Trace {
        try read(try LogFile.contents(of: path))
    }

    /// Reads a log held in memory.
    public static func read(_ data: Data) throws(TraceReadError) -> Trace {
        var bytes = [UInt8](data)
        var damage: [TraceDamage] = []
        // JSONSerialization reads UTF-16 and UTF-32 too, so such a header would pass and every
        // later line, full of zero bytes, would be skipped as unwritten: 0 events.
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF])
            || (bytes.count >= 2 && (bytes[0] == 0) != (bytes[1] == 0)) {
            throw .notALifelineLog(reason: "it is UTF-16 or UTF-32 text; a Lifeline log is UTF-8")
        }
        // A recording that never stopped leaves the rest of its last file chunk zero-filled.
        while bytes.last == 0 { bytes.removeLast() }
        guard !bytes.isEmpty else { throw .empty }

        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let endsWithNewline = bytes.last == UInt8(ascii: "\n")
        if endsWithNewline { lines.removeLast() }

        let header = try readHeader(Array(lines[0]))
        var builder = TraceBuilder()
        for index in 1..<lines.count {
            let number = index + 1
            var line = lines[index]
            if line.contains(0) {
                damage.append(.unwrittenGap(line: number))
                guard let start = line.lastIndex(of: 0) else { continue }
                line = line[(start + 1)...]
                if line.isEmpty { continue }
            }
            let isLast = index == lines.count - 1
            do throws(TraceReadError) {
                try builder.add(try LineFields(Array(line), number: number))
            } catch {
                if isLast && !endsWithNewline {
                    damage.append(.truncatedFinalLine(line: number))
                } else {
                    throw error
                }
            }
        }
        return try builder.finish(header: header, damage: damage)
    }

    private static func readHeader(_ line: [UInt8]) throws(TraceReadError) -> TraceHeader {
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
            valueDescriptionLimit: try values?.integer("max_length")
        )
    }
}
