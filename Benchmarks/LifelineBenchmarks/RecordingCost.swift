import Foundation
import Lifeline

/// One row of the recording-cost table: a way of recording the chain, run three times.
struct RecordingCost {
    let name: String
    /// The sending thread's CPU nanoseconds per value (the median run's).
    let perValue: Double
    /// The monotonic clock's nanoseconds per value in the same run.
    var wallPerValue: Double
    /// The process's CPU nanoseconds per value in the same run, which include the log's growth
    /// thread.
    var processPerValue: Double
    /// Page faults the sending thread took per 1,000 values in the same run.
    var threadFaultsPerThousand: Double
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
        var samples: [(cost: ValueChain.SendCost, log: LogSize?)] = []
        for _ in 0..<3 {
            samples.append(try run(values: values, instrument: instrument, recording: options, logDirectory: logDirectory, before: before, after: after))
        }
        let median = samples.sorted { $0.cost.thread < $1.cost.thread }[1]
        var cost = RecordingCost(
            name: name, perValue: Double(median.cost.thread) / Double(values),
            wallPerValue: Double(median.cost.wall) / Double(values),
            processPerValue: Double(median.cost.process) / Double(values),
            threadFaultsPerThousand: Double(median.cost.threadFaults) * 1000 / Double(values)
        )
        if let log = median.log, log.events > 0 {
            cost.eventsPerValue = Double(log.events) / Double(values)
            cost.bytesPerEvent = Double(log.bytes) / Double(log.events)
        }
        return cost
    }

    /// Runs `instrument` on `values` values once, recording with `options` when given, and
    /// returns what the sends cost and, when it recorded, the log's size; `timingEach` times
    /// each send.
    static func run(
        values: Int, instrument: ValueChain.Instrument, recording options: RecordingOptions?, logDirectory: String,
        timingEach: Bool = false, before: () -> Void = {}, after: () -> Void = {}
    ) throws -> (cost: ValueChain.SendCost, log: LogSize?) {
        guard let options else {
            before()
            defer { after() }
            return (ValueChain.send(values, with: instrument, timingEach: timingEach), nil)
        }
        let path = "\(logDirectory)/lifeline-benchmark-\(getpid()).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Lifeline.start(writingTo: path, options: options)
        let cost = ValueChain.send(values, with: instrument, timingEach: timingEach)
        Lifeline.stop()
        return (cost, try LogSize(path: path))
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
        if let bytesPerEvent {
            text += String(format: "  %5.1f B/event  process %.1f ns/value  %.1f faults/1k values", bytesPerEvent, processPerValue, threadFaultsPerThousand)
        }
        return text
    }

    /// The median run's CPU and wall nanoseconds per value.
    var elapsed: Elapsed { Elapsed(cpu: perValue, wall: wallPerValue) }
}
