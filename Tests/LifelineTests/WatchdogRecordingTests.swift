import Foundation
import Lifeline
import LifelineLog
import OpenCombineShim
import Testing

extension RecordingTests {
    /// `Lifeline.watchdog(after:)` in the recording process: a hang record for a quiet stretch
    /// with a subscription open, none for a quiet stretch with none, and the record kept in a
    /// log that then stops cleanly.
    @Suite struct WatchdogRecordingTests {
        /// Waits at most `limit` for `condition`, checking every 50 ms; whether it came true.
        static func eventually(within limit: Duration = .seconds(30), _ condition: () -> Bool) -> Bool {
            let clock = ContinuousClock()
            let deadline = clock.now + limit
            while clock.now < deadline {
                if condition() { return true }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return condition()
        }

        /// The hang lines written so far to the log at `path`.
        static func hangLines(in path: String) -> Int {
            guard let data = FileManager.default.contents(atPath: path) else { return 0 }
            return String(decoding: data, as: UTF8.self).components(separatedBy: "{\"kind\":\"hang\"").count - 1
        }

        @Test(arguments: TraceLogFormat.allCases)
        func aQuietStretchWithASubscriptionOpenGetsOneRecordAndAnIdleOneNone(format: TraceLogFormat) throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("watchdog-\(UUID().uuidString).lifeline").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try Lifeline.start(writingTo: path, options: RecordingOptions(logFormat: format))
            Lifeline.watchdog(after: .milliseconds(100))
            let answers = PassthroughSubject<Int, Never>()
            let waiting = answers.lifeline("answers").sink { _ in }
            let sawHang = Self.eventually { Self.hangLines(in: path) > 0 }
            // The stretch that was reported is not reported again while it lasts.
            Thread.sleep(forTimeInterval: 1)
            let recordsInTheStretch = Self.hangLines(in: path)
            waiting.cancel()
            // Idle with nothing open: ten periods and more without a record.
            Thread.sleep(forTimeInterval: 2)
            let recordsWhenIdle = Self.hangLines(in: path)
            Lifeline.stop()

            #expect(sawHang)
            #expect(recordsInTheStretch == 1)
            #expect(recordsWhenIdle == 1)
            let trace = try TraceReader.read(contentsOf: path)
            #expect(trace.damage.isEmpty, "\(trace.damage)")
            let hang = try #require(trace.hangs.first)
            #expect(trace.hangs.count == 1)
            #expect(hang.cause == .watchdog && hang.idle >= 100_000_000)
            let before = try #require(trace.events.last { $0.seq <= hang.seq })
            #expect(before.seq == hang.seq)
            #expect(trace.events.contains { $0.seq > hang.seq && $0.kind.name == "cancel" }, "the cancel came after the record")
            #expect(trace.snapshots.map(\.reason) == [.hang, .stop])
        }

        @Test func noWatchdogMeansNoRecordHoweverLongTheWait() throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("watchdog-\(UUID().uuidString).lifeline").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try Lifeline.start(writingTo: path)
            let answers = PassthroughSubject<Int, Never>()
            let waiting = answers.sink { _ in }
            Thread.sleep(forTimeInterval: 1.5)
            waiting.cancel()
            Lifeline.stop()
            #expect(try TraceReader.read(contentsOf: path).hangs.isEmpty)
        }
    }
}
