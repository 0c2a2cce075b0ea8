/// Reads a version 6, 7, 9 or 11 log (binary event records between JSON lines) into a
/// ``Trace``, with the same checks and the same tolerance of crash damage as a log of JSON
/// lines.
enum BinaryLogReader {
    /// Reads the parts of `bytes` after the header line, which ends before `start`.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, header: TraceHeader, from start: Int) throws(TraceReadError) -> Trace {
        var conversion = BinaryLogLayout.conversion(of: bytes, from: start, header: header)
        var builder = TraceBuilder()
        builder.namesTypes = header.namesTypes
        builder.recordsHangs = header.recordsHangs
        var flat = FlatLine()
        var damage: [TraceDamage] = []
        var firstUnwritten: Int?
        let chunked = BinaryLogLayout.isChunked(header)
        try BinaryLogLayout.forEachPart(in: bytes, from: start, chunked: chunked) { part, number throws(TraceReadError) in
            switch part {
            case .record(let range):
                let event = try BinaryEventRecord.decode(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range])), number: number)
                builder.add(event.timed(conversion.time(ofTicks: event.time)), number: number)
            case .line(let range):
                try add(UnsafeBufferPointer(rebasing: bytes[range]), number: number, to: &builder, flat: &flat, conversion: &conversion)
            case .unterminatedLine(let range):
                do throws(TraceReadError) {
                    try add(UnsafeBufferPointer(rebasing: bytes[range]), number: number, to: &builder, flat: &flat, conversion: &conversion)
                } catch {
                    damage.append(.truncatedFinalLine(line: number))
                }
            case .damage(let found):
                damage.append(found)
            case .unwritten(let line):
                firstUnwritten = firstUnwritten ?? line
            }
        }
        let trace = try builder.finish(header: header, damage: damage)
        // A killed recording leaves the unused ends of its threads' chunks unwritten, and loses
        // nothing by them; a stopped one fills them, so zero bytes there are damage.
        if let line = firstUnwritten, !trace.damage.contains(.notClosed) {
            throw .malformedLine(line: line, reason: "zero bytes inside a log that was closed cleanly")
        }
        return trace
    }

    private static func add(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, to builder: inout TraceBuilder, flat: inout FlatLine,
        conversion: inout TickConversion
    ) throws(TraceReadError) {
        if BinaryLogLayout.isClockLine(line) {
            _ = try BinaryLogLayout.clockPoint(line, number: number)
            return
        }
        if let event = try BinaryLogLayout.eventLine(line, number: number, conversion: &conversion) {
            builder.add(event, number: number)
            return
        }
        let quick = flat.scan(line) ? try builder.add(flat, number: number) : false
        if !quick { try builder.add(try LineFields(line, number: number)) }
    }
}

extension TraceEvent {
    /// The same event at event time `time`.
    func timed(_ time: UInt64) -> TraceEvent {
        TraceEvent(seq: seq, time: time, thread: thread, queue: queue, phase: phase, kind: kind, callSite: callSite)
    }
}
