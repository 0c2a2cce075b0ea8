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

        /// The same for a log of JSON lines, which a full file system used to leave without its
        /// end record: the log ended in a cut line, and nothing said how many events were lost.
        @Test(.enabled(if: SmallFileSystem.canMount, "mounting a small tmpfs needs root"))
        func aFullFileSystemLeavesAJSONLinesLogThatSaysWhatWasLost() throws {
            let disk = try SmallFileSystem(kibibytes: 320)
            defer { disk.unmount() }
            let log = disk.folder.appendingPathComponent("full.jsonl").path
            let result = try RecordingChild.run(["stop", log, "20000", "format=jsonl"])
            #expect(result.status == 0 && result.standardOutput.contains("stopped"),
                    "the child died with status \(result.status): \(result.standardError)")
            #expect(result.standardError.contains("events were not written to \(log): the log stopped growing at"),
                    "\(result.standardError)")
            let trace = try TraceReader.read(contentsOf: log)
            #expect(trace.header.format == .jsonLines)
            let dropped = trace.damage.compactMap { if case .droppedEvents(let count) = $0 { count } else { nil } }
            #expect(dropped.count == 1 && dropped[0] > 1_000, "\(trace.damage)")
            #expect(!trace.damage.contains(.notClosed), "\(trace.damage)")
            #expect(trace.events.map(\.seq) == Array(1...UInt64(trace.events.count)))
        }

        /// Lines that fill the file system to the last byte of a page, whichever page it stops
        /// at, left no block for the end record: writers now stop short of the file's end by
        /// the end record's room, so the record always fits and counts what was dropped.
        @Test(.enabled(if: SmallFileSystem.canMount, "mounting a small tmpfs needs root"))
        func theEndRecordFitsWhenLinesFillTheFileSystemToAPageBoundary() throws {
            let disk = try SmallFileSystem(kibibytes: 128)
            defer { disk.unmount() }
            let log = disk.folder.appendingPathComponent("exact.jsonl").path
            let header = TraceHeader(processID: 1, processName: "full", startedAt: "2026-11-27T00:00:00Z", clockOrigin: 0,
                                     valueDescriptionLimit: nil)
            let writer = try TraceFileWriter(path: log, header: header)
            TraceLineEncoder.withLine(for: TraceThread(tid: 1, name: "main")) { writer.append($0) }
            let lineLength = 128
            let used = TraceLineEncoder.withLine(for: header) { $0.count } + TraceLineEncoder.withLine(for: TraceThread(tid: 1, name: "main")) { $0.count }
            /// A mark whose line is `length` bytes long.
            func mark(_ seq: UInt64, length: Int) -> TraceEvent {
                let bare = TraceEvent(seq: seq, time: 0, thread: 1, queue: nil, phase: .instant, kind: .mark(label: ""))
                let padding = length - TraceLineEncoder.withLine(for: bare) { $0.count }
                return TraceEvent(seq: seq, time: 0, thread: 1, queue: nil, phase: .instant,
                                  kind: .mark(label: String(repeating: "m", count: padding)))
            }
            // The first mark ends the first page; every later one ends at a multiple of its length,
            // so the last line that fits ends exactly where the file system stopped the file.
            writer.append(mark(1, length: 4_096 - used))
            var seq: UInt64 = 1
            while writer.shortfall == nil && seq < 10_000 {
                seq += 1
                writer.append(mark(seq, length: lineLength))
            }
            for _ in 0..<10 {
                seq += 1
                writer.append(mark(seq, length: lineLength))
            }
            writer.close(events: seq)
            let trace = try TraceReader.read(contentsOf: log)
            let written = UInt64(trace.events.count)
            #expect(written > 100 && written < seq)
            #expect(trace.damage == [.droppedEvents(seq - written)], "\(trace.damage)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: log))
            #expect(String(decoding: bytes.suffix(80), as: UTF8.self).hasSuffix("{\"kind\":\"end\",\"events\":\(seq),\"dropped\":\(seq - written)}\n"))
        }

        /// A recording refused because the file system has no room for its log leaves no empty
        /// file behind for tools to trip over.
        @Test(.enabled(if: SmallFileSystem.canMount, "mounting a small tmpfs needs root"))
        func aStartRefusedForLackOfSpaceLeavesNoFile() throws {
            let disk = try SmallFileSystem(kibibytes: 64)
            defer { disk.unmount() }
            let filler = disk.folder.appendingPathComponent("filler")
            let descriptor = open(filler.path, O_WRONLY | O_CREAT, 0o644)
            try #require(descriptor >= 0)
            let block = [UInt8](repeating: 1, count: 4_096)
            while write(descriptor, block, block.count) > 0 {}
            close(descriptor)
            let log = disk.folder.appendingPathComponent("trace.lifeline").path
            #expect {
                try Lifeline.start(writingTo: log)
            } throws: { error in
                "\(error)".contains(String(cString: strerror(ENOSPC)))
            }
            #expect(!FileManager.default.fileExists(atPath: log), "the refused start left \(log) behind")
            Lifeline.stop()
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
