import Foundation
import LifelineLog

/// Writes a trace as a log file, line for line as the recorder writes one.
enum TraceLogFile {
    /// Writes `trace` to a new file in a fresh temporary folder and returns its path.
    static func write(_ trace: Trace, named name: String) throws -> String {
        var bytes = Data()
        let add = { (line: UnsafeRawBufferPointer) in bytes.append(contentsOf: line) }
        TraceLineEncoder.withLine(for: trace.header, add)
        trace.objects.keys.sorted().forEach { TraceLineEncoder.withLine(for: trace.objects[$0]!, add) }
        trace.threads.keys.sorted().forEach { TraceLineEncoder.withLine(for: trace.threads[$0]!, add) }
        trace.queues.keys.sorted().forEach { TraceLineEncoder.withLine(for: trace.queues[$0]!, add) }
        trace.events.forEach { TraceLineEncoder.withLine(for: $0, add) }
        TraceLineEncoder.withEndLine(events: UInt64(trace.events.count), dropped: 0, add)
        return try write(bytes, named: name)
    }

    /// Writes `bytes` to a new file in a fresh temporary folder and returns its path.
    static func write(_ bytes: Data, named name: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-command-tests-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try bytes.write(to: url)
        return url.path
    }
}
