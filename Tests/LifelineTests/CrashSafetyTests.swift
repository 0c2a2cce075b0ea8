import Foundation
import Lifeline
import LifelineLog
import OpenCombineShim
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RecordingTests {
    /// A recording survives what ends a process: an exit without `stop()`, a SIGKILL at any
    /// moment (during a snapshot too), an address-space limit, and many threads at once.
    @Suite struct CrashSafetyTests {
        /// A small deterministic generator (SplitMix64), so that a failing kill schedule can be
        /// replayed.
        struct SeededGenerator: RandomNumberGenerator {
            var state: UInt64
            mutating func next() -> UInt64 {
                state &+= 0x9E37_79B9_7F4A_7C15
                var mixed = state
                mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
                mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
                return mixed ^ (mixed >> 31)
            }
        }

        @Test func aRecordingStartsUnderAnAddressSpaceLimit() throws {
            let folder = try RecordingChild.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let log = folder.appendingPathComponent("limited.jsonl").path
            // 4 GiB of address space, as `ulimit -v 4194304` sets it; valgrind refuses large
            // reservations the same way.
            let result = try RecordingChild.run(["exit", log, "100"], addressSpaceLimitKiB: 4 << 20)
            #expect(result.status == 0, "the child failed: \(result.standardError)")
            let trace = try TraceReader.read(contentsOf: log)
            #expect(trace.events.filter { $0.kind.name == "mark" }.count == 100)
        }

        /// A full file system stops the log, not the program: each step of the file is
        /// allocated before any thread may write there, so no traced thread takes a SIGBUS for
        /// a page the file system has no room for, and stopping says what was lost.
        @Test(.enabled(if: SmallFileSystem.canMount, "mounting a small tmpfs needs root"))
        func aFullFileSystemStopsTheLogNotTheProgram() throws {
            let disk = try SmallFileSystem(kibibytes: 256)
            defer { disk.unmount() }
            let log = disk.folder.appendingPathComponent("full.lifeline").path
            let result = try RecordingChild.run(["stop", log, "20000"])
            #expect(result.status == 0 && result.standardOutput.contains("stopped"),
                    "the child died with status \(result.status): \(result.standardError)")
            #expect(result.standardError.contains("events were not written to \(log): the log stopped growing at"),
                    "\(result.standardError)")
            #expect(result.standardError.contains(String(cString: strerror(ENOSPC))), "\(result.standardError)")
            let trace = try TraceReader.read(contentsOf: log)
            #expect(trace.damage.contains { if case .droppedEvents = $0 { true } else { false } }, "\(trace.damage)")
            #expect(trace.events.count > 1_000)
            #expect(trace.events.map(\.seq) == Array(1...UInt64(trace.events.count)))
        }

        @Test func aProcessThatExitsWithoutStoppingLeavesALogOfWhatItWrote() throws {
            let folder = try RecordingChild.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            for count in [1, 300] {
                let log = folder.appendingPathComponent("exit-\(count).jsonl").path
                let result = try RecordingChild.run(["exit", log, "\(count)"])
                #expect(result.status == 0, "the child failed: \(result.standardError)")
                let bytes = try Data(contentsOf: URL(fileURLWithPath: log))
                // Binary records hold zero bytes; padding would be zeros at the end.
                #expect(bytes.last == UInt8(ascii: "\n"), "\(bytes.count) bytes, ending in \(bytes.reversed().prefix { $0 == 0 }.count) zero bytes")
                let trace = try TraceReader.read(contentsOf: log)
                #expect(trace.damage == [.notClosed])
                #expect(trace.events.filter { $0.kind.name == "mark" }.count == count)
                #expect(trace.events.map(\.seq) == Array(1...UInt64(trace.events.count)))
            }
        }

        /// Kills a recording child at seeded random moments, a third of them right as it starts
        /// a snapshot, and checks that every event it recorded before its last report is in
        /// the log, gapless, and that the log carries little zero padding.
        @Test func aKilledRecordingKeepsEveryEventItRecorded() throws {
            let folder = try RecordingChild.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            var generator = SeededGenerator(state: 0x11FE_11DE)
            let kills = 12
            var killsDuringSnapshot = 0
            var eventsChecked: UInt64 = 0
            for kill in 0..<kills {
                let log = folder.appendingPathComponent("kill-\(kill).jsonl").path
                let duringSnapshot = kill % 3 == 0
                let rounds = Int.random(in: 1...40, using: &generator)
                let child = try RecordingChild.start(["churn", log, "8"])
                let lastReported = try child.killed { line in
                    duringSnapshot ? line.hasPrefix("snapshot ") && Self.round(in: line) >= rounds
                        : line.hasPrefix("recorded ") && Self.round(in: line) >= rounds
                }
                let context = "kill \(kill) after round \(lastReported) (seed 0x11FE11DE)"
                try #require(lastReported > 0, "\(context): the child reported nothing: \(child.standardError)")

                let trace = try TraceReader.read(contentsOf: log)
                let marks = trace.events.compactMap { event -> (round: Int, seq: UInt64)? in
                    guard case .mark(let label) = event.kind, label.hasPrefix("round ") else { return nil }
                    return (Int(label.dropFirst(6))!, event.seq)
                }
                #expect(Array(marks.map(\.round).prefix(lastReported)) == Array(1...lastReported), "\(context)")
                let reportedSeq = try #require(marks.first { $0.round == lastReported }?.seq, "\(context)")
                let recorded = trace.events.map(\.seq).filter { $0 <= reportedSeq }
                #expect(recorded == Array(1...reportedSeq), "\(context): events missing before the last report")
                eventsChecked += reportedSeq
                if duringSnapshot && !trace.snapshots.contains(where: { $0.label == "snapshot \(lastReported)" }) {
                    killsDuringSnapshot += 1
                }

                let bytes = try Data(contentsOf: URL(fileURLWithPath: log))
                let written = (bytes.lastIndex { $0 != 0 } ?? 0) + 1
                #expect(bytes.count - written <= max(64 << 10, written / 4), "\(context): \(bytes.count - written) bytes of padding after \(written)")
            }
            // Snapshots take milliseconds, and the kill follows the child's report within
            // microseconds: most of these kills land inside a snapshot.
            #expect(killsDuringSnapshot > 0, "no kill landed inside a snapshot")
            print("crash safety: \(kills) kills (\(killsDuringSnapshot) inside a snapshot), \(eventsChecked) events recorded before them, all in the logs")
        }

        /// 16 threads each send values through a pipeline of their own while one recording
        /// runs: the log is gapless in seq and holds exactly 16 times what one pipeline records.
        @Test func sixteenThreadsRecordGaplessExactLogs() throws {
            let valuesPerThread = 200
            let one = try Lifeline.record { Self.runPipeline(values: valuesPerThread) }
            let threads = 16
            let trace = try Lifeline.record {
                let group = DispatchGroup()
                for _ in 0..<threads {
                    group.enter()
                    let thread = Thread {
                        Self.runPipeline(values: valuesPerThread)
                        group.leave()
                    }
                    thread.start()
                }
                group.wait()
            }
            #expect(trace.damage.isEmpty)
            #expect(trace.events.map(\.seq) == Array(1...UInt64(trace.events.count)))
            #expect(Self.countsByKind(trace) == Self.countsByKind(one).mapValues { $0 * threads })
            let valueThreads = Dictionary(grouping: trace.events.filter { $0.kind.name == "value" }, by: \.thread)
            #expect(valueThreads.count == threads)
            #expect(Set(valueThreads.values.map(\.count)).count == 1)
        }

        static func runPipeline(values: Int) {
            let subject = PassthroughSubject<Int, Never>()
            var received = 0
            let cancellable = subject.map { $0 * 2 }.filter { $0 % 3 != 0 }.map { $0 + 1 }.sink { _ in received += 1 }
            for value in 0..<values { subject.send(value) }
            cancellable.cancel()
        }

        static func countsByKind(_ trace: Trace) -> [String: Int] {
            trace.events.reduce(into: [:]) { counts, event in counts[event.kind.name, default: 0] += 1 }
        }

        static func round(in line: String) -> Int {
            Int(line.split(separator: " ").last ?? "") ?? 0
        }
    }
}
