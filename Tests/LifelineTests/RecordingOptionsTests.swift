import Dispatch
import Foundation
import OpenCombineShim
import Testing
import Lifeline
import LifelineAnalysis
import LifelineLog

extension RecordingTests {
    /// What the options promise: a snapshot at stop by default, bad options refused at start,
    /// and an end record that counts exactly the events the log lacks.
    @Suite struct RecordingOptionsTests {
        final class Profile {
            let name = PassthroughSubject<String, Never>()
            var shown = ""
            var cancellables = Set<AnyCancellable>()

            func bind() {
                name.sink { self.shown = $0 }.store(in: &cancellables)
            }
        }

        static func temporaryLog(_ name: String) -> String {
            FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-options-\(name)-\(getpid()).jsonl").path
        }

        /// The end record's counts, read from the log's last line.
        static func endRecord(of path: String) throws -> (events: Int, dropped: Int) {
            // The last line: binary records end in a newline byte too, and JSON lines hold none.
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path)).dropLast()
            let start = bytes.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.startIndex
            let fields = try #require(JSONSerialization.jsonObject(with: Data(bytes[start...])) as? [String: Any])
            #expect(fields["kind"] as? String == "end")
            return (try #require(fields["events"] as? Int), try #require(fields["dropped"] as? Int))
        }

        @Test func theDefaultRecordingFindsARetainCycleAliveAtStop() throws {
            let path = Self.temporaryLog("default")
            defer { try? FileManager.default.removeItem(atPath: path) }
            let profile = Profile()
            try Lifeline.start(writingTo: path)
            profile.bind()
            profile.name.send("Ada")
            Lifeline.stop()
            let trace = try TraceReader.read(contentsOf: path)
            #expect(trace.snapshots.map(\.reason) == [.stop])
            let cycles = TraceAnalyzer().diagnose(trace).filter { $0.code == "retain-cycle" }
            #expect(cycles.count == 1)
            // The profile is still held from the stack: the loop leaks when that lets go, but
            // nothing is leaked yet.
            #expect(cycles.first?.severity == .warning)
            #expect(cycles.first?.message.contains("Profile") == true)
            #expect(cycles.first?.message.hasSuffix("when it lets go, the loop keeps them alive.") == true)
            profile.cancellables.removeAll()
        }

        @Test func snapshotPoliciesSayWhenSnapshotsAreTaken() throws {
            func reasons(_ policy: RecordingOptions.SnapshotPolicy) throws -> [TraceSnapshot.Reason] {
                try Lifeline.record(options: RecordingOptions(snapshots: policy)) {
                    let subject = PassthroughSubject<Int, Never>()
                    subject.sink { _ in }.cancel()
                }.snapshots.map(\.reason)
            }
            #expect(try reasons(.none) == [])
            #expect(try reasons(.atStop) == [.stop])
            let everyCall = try reasons(.everyCall)
            #expect(everyCall.first == .subscribe && everyCall.contains(.cancel) && everyCall.last == .stop)
            #expect(RecordingOptions().snapshots == .atStop)
        }

        @Test(arguments: [
            (RecordingOptions(valueDescriptionLimit: -1), "valueDescriptionLimit is -1"),
            (RecordingOptions(valueDescriptionLimit: 0), "valueDescriptionLimit is 0"),
            (RecordingOptions(logCapacity: 100), "logCapacity is 100 bytes"),
            (RecordingOptions(logCapacity: -5), "logCapacity is -5 bytes"),
        ])
        func badOptionsAreRefusedAtStartAndNothingIsRecorded(options: RecordingOptions, reason: String) throws {
            let path = Self.temporaryLog("bad")
            try? FileManager.default.removeItem(atPath: path)
            #expect {
                try Lifeline.start(writingTo: path, options: options)
            } throws: { error in
                guard let error = error as? LifelineError, case .invalidOptions(let text) = error else { return false }
                return text.contains(reason) && error.description.hasPrefix("invalid recording options: ")
            }
            #expect(!Lifeline.isRecording)
            #expect(!FileManager.default.fileExists(atPath: path))
        }

        @Test func theSmallestCapacityGivesAReadableLogWhoseEndRecordCountsOnlyMissingEvents() throws {
            let path = Self.temporaryLog("small")
            defer { try? FileManager.default.removeItem(atPath: path) }
            try Lifeline.start(writingTo: path, options: RecordingOptions(
                valueDescriptionLimit: 40, logCapacity: RecordingOptions.minimumLogCapacity, snapshots: .none
            ))
            for round in 0..<200 {
                let subject = PassthroughSubject<Int, Never>()
                let cancellable = subject.map { $0 + 1 }.sink { _ in }
                subject.send(round)
                cancellable.cancel()
            }
            Lifeline.stop()
            let trace = try TraceReader.read(contentsOf: path)
            let end = try Self.endRecord(of: path)
            #expect(end.dropped > 0)
            #expect(trace.events.count + end.dropped == end.events)
            #expect(trace.damage.contains(.droppedEvents(UInt64(end.dropped))))
        }

        @Test(arguments: [true, false])
        func theEndOfACallRunningWhenRecordingStopsIsCountedAsDropped(automatic: Bool) throws {
            let path = Self.temporaryLog("late")
            defer { try? FileManager.default.removeItem(atPath: path) }
            try Lifeline.start(writingTo: path, options: RecordingOptions(automatic: automatic))
            nonisolated(unsafe) let subject = PassthroughSubject<Int, Never>()
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let cancellable = subject.lifeline("late").sink { _ in
                entered.signal()
                release.wait()
            }
            let delivered = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                subject.send(1)
                delivered.signal()
            }
            entered.wait()
            Lifeline.stop()
            release.signal()
            delivered.wait()
            cancellable.cancel()
            let trace = try TraceReader.read(contentsOf: path)
            let end = try Self.endRecord(of: path)
            #expect(end.dropped == 1)
            #expect(end.events == trace.events.count + 1)
            #expect(trace.events.last?.phase == .begin)
            #expect(trace.damage.contains(.droppedEvents(1)))
        }

        @Test func optionTextReadsEveryItemAndLaterItemsWin() throws {
            #expect(try RecordingOptions(parsing: "") == RecordingOptions())
            #expect(try RecordingOptions(parsing: " snapshots , values=80 ") == RecordingOptions(valueDescriptionLimit: 80, snapshots: .everyCall))
            #expect(try RecordingOptions(parsing: "operator-only,snapshots=none,capacity=2M")
                == RecordingOptions(automatic: false, logCapacity: 2 << 20, snapshots: .none))
            #expect(try RecordingOptions(parsing: "snapshots=every-call,snapshots=stop,capacity=65536,automatic")
                == RecordingOptions(logCapacity: 65_536))
            #expect(try RecordingOptions(parsing: "capacity=1g").logCapacity == 1 << 30)
            #expect(try RecordingOptions(parsing: "format=jsonl").logFormat == .jsonLines)
            #expect(try RecordingOptions(parsing: "format=jsonl,format=binary") == RecordingOptions())
            #expect(try RecordingOptions(parsing: "watchdog=5s").watchdog == .seconds(5))
            #expect(try RecordingOptions(parsing: "watchdog=250ms,format=jsonl") == RecordingOptions(logFormat: .jsonLines, watchdog: .milliseconds(250)))
            #expect(try RecordingOptions(parsing: "watchdog=2m").watchdog == .seconds(120))
        }

        @Test(arguments: [
            ("snapshot", "can't read \"snapshot\""), ("values", "can't read \"values\""), ("values=lots", "whole number"),
            ("snapshots=always", "none, stop or every-call"), ("capacity=12X", "K, M or G"), ("values=0", "valueDescriptionLimit is 0"),
            ("capacity=1K", "logCapacity is 1024 bytes"), ("capacity=99999999999999999G", "K, M or G"),
            ("format=json", "format is binary or jsonl"), ("watchdog=5", "ms, s or m"), ("watchdog=fast", "ms, s or m"),
            ("watchdog=0s", "it must be at least 10 ms"), ("watchdog=-1s", "ms, s or m"),
        ])
        func unreadableOptionTextSaysWhichItem(text: String, reason: String) {
            #expect {
                _ = try RecordingOptions(parsing: text)
            } throws: { error in
                guard let error = error as? LifelineError, case .invalidOptions(let message) = error else { return false }
                return message.contains(reason)
            }
        }
    }
}
