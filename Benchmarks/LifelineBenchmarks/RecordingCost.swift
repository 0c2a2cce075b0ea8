import Foundation
import Lifeline

/// One row of the recording-cost table: a way of recording the chain, run three times.
struct RecordingCost {
    let name: String
    /// CPU nanoseconds per value (the median run's).
    let perValue: Double
    /// Events recorded per value, when the row records a log.
    var eventsPerValue: Double?
    /// Bytes of log per recorded event, when the row records a log.
    var bytesPerEvent: Double?

    /// What a log holds once recording stopped: its size and the event count of its end record.
    struct LogSize {
        let bytes: Int
        let events: Int

        /// Reads the end record `{"kind":"end","events":N,…}`, the log's last line.
        init(path: String) throws {
            let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
            bytes = data.count
            let tail = String(decoding: data.suffix(256), as: UTF8.self)
            guard let range = tail.range(of: "\"events\":") else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path])
            }
            events = Int(tail[range.upperBound...].prefix { $0.isNumber }) ?? 0
        }
    }

    /// Runs `instrument` on `values` values three times, recording with `options` when given;
    /// `before` and `after` run around each run that records no log (to enable a hook).
    static func measure(
        _ name: String, values: Int, instrument: ValueChain.Instrument, recording options: RecordingOptions? = nil,
        logDirectory: String, before: () -> Void = {}, after: () -> Void = {}
    ) throws -> RecordingCost {
        var samples: [(nanoseconds: UInt64, log: LogSize?)] = []
        for _ in 0..<3 {
            guard let options else {
                before()
                samples.append((ValueChain.send(values, with: instrument), nil))
                after()
                continue
            }
            let path = "\(logDirectory)/lifeline-benchmark-\(getpid()).jsonl"
            defer { try? FileManager.default.removeItem(atPath: path) }
            try Lifeline.start(writingTo: path, options: options)
            let elapsed = ValueChain.send(values, with: instrument)
            Lifeline.stop()
            samples.append((elapsed, try LogSize(path: path)))
        }
        let median = samples.sorted { $0.nanoseconds < $1.nanoseconds }[1]
        var cost = RecordingCost(name: name, perValue: Double(median.nanoseconds) / Double(values))
        if let log = median.log, log.events > 0 {
            cost.eventsPerValue = Double(log.events) / Double(values)
            cost.bytesPerEvent = Double(log.bytes) / Double(log.events)
        }
        return cost
    }

    /// The row as printed: ns per value, × untraced, and for a recorder the ns each event adds
    /// over `floor` (untraced for the in-chain recorders, the hook floor for automatic mode).
    func line(untraced: Double, floor: Double? = nil, floorName: String = "untraced") -> String {
        var text = name.padding(toLength: 40, withPad: " ", startingAt: 0)
            + String(format: "%9.1f ns/value %6.1f× untraced", perValue, perValue / untraced)
        if let eventsPerValue {
            text += String(format: "  %4.1f events/value %7.1f ns/event over %@", eventsPerValue,
                           (perValue - (floor ?? untraced)) / eventsPerValue, floorName)
        }
        if let bytesPerEvent { text += String(format: "  %5.1f B/event", bytesPerEvent) }
        return text
    }
}
