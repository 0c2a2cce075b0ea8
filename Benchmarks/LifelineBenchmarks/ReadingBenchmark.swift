import Foundation
import Lifeline
import LifelineLog
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// Prints what reading a million-event log costs: the reader in-process (events per second,
/// for the log recorded as JSON Lines and again as binary records), then `lifeline diagnose`, `render --format svg` and `render --format perfetto` as child
/// processes, each with its wall time and peak memory, on four shapes of log.
///
/// With `LIFELINE_BENCHMARK_KEEP_LOGS` set, the logs stay in the log directory, numbered
/// `lifeline-reading-benchmark-1.jsonl` to `-4` in the order of ``shapes`` (and their binary
/// forms `-1-binary.log` to `-4-binary.log`), for profiling. With
/// `LIFELINE_BENCHMARK_REUSE_LOGS` set too, the logs kept by an earlier run are read again
/// rather than recorded anew, so that a change to the reader is measured on the same bytes.
enum ReadingBenchmark {
    /// A shape of log and how to record it.
    struct Shape: Sendable {
        let name: String
        let record: @Sendable (_ events: Int) -> Void
    }

    static let shapes = [
        Shape(name: "one long pipeline") { events in
            let subject = PassthroughSubject<Int, Never>()
            var total = 0
            let cancellable = subject.map { $0 &+ 1 }.sink { total &+= $0 }
            for value in 0..<(events / 4) { subject.send(value) }
            cancellable.cancel()
        },
        Shape(name: "80,000 short pipelines") { events in
            for value in 0..<(events / 12) { _ = Just(value).sink { _ in } }
        },
        Shape(name: "one subscriber re-subscribed") { events in
            struct Failure: Error {}
            _ = Fail<Int, Failure>(error: Failure()).retry(events / 8).sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        },
        Shape(name: "demand .max(1) per value") { events in
            let subject = PassthroughSubject<Int, Never>()
            let subscriber = OneAtATime()
            subject.subscribe(subscriber)
            for value in 0..<(events / 4) { subject.send(value) }
            subscriber.subscription?.cancel()
        },
    ]

    /// A subscriber that asks for one more value with each value it gets.
    final class OneAtATime: Subscriber {
        var subscription: Subscription?
        func receive(subscription: Subscription) {
            self.subscription = subscription
            subscription.request(.max(1))
        }
        func receive(_ input: Int) -> Subscribers.Demand { .max(1) }
        func receive(completion: Subscribers.Completion<Never>) {}
    }

    static func run(events: Int, logDirectory: String) throws {
        let lifeline = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("lifeline").path
        print("Reading a log of about \(events) events (automatic mode); commands run as child processes of \(lifeline)")
        print("read/s: JSON Lines, then the same shape recorded as binary records; the commands read the JSON Lines log")
        print("shape                               events     read/s  (binary)   diagnose          svg               perfetto")
        let environment = ProcessInfo.processInfo.environment
        let keep = environment["LIFELINE_BENCHMARK_KEEP_LOGS"] != nil
        let reuse = keep && environment["LIFELINE_BENCHMARK_REUSE_LOGS"] != nil
        for (number, shape) in shapes.enumerated() {
            let path = "\(logDirectory)/lifeline-reading-benchmark\(keep ? "-\(number + 1)" : "").jsonl"
            let binaryPath = "\(logDirectory)/lifeline-reading-benchmark\(keep ? "-\(number + 1)" : "")-binary.log"
            defer {
                if !keep {
                    try? FileManager.default.removeItem(atPath: path)
                    try? FileManager.default.removeItem(atPath: binaryPath)
                }
            }
            // JSON Lines: the interchange format, and the slower one to read.
            let (count, rate) = try readingRate(of: shape, events: events, at: path, format: .jsonLines, recording: !reuse)
            let (_, binaryRate) = try readingRate(of: shape, events: events, at: binaryPath, format: .binary, recording: !reuse)
            var line = shape.name.padding(toLength: 34, withPad: " ", startingAt: 0)
            line += String(format: " %9d %9.2fM %8.2fM", count, rate / 1e6, binaryRate / 1e6)
            for arguments in [["diagnose", path], ["render", path, "--format", "svg"], ["render", path, "--format", "perfetto"]] {
                line += "  " + (FileManager.default.isExecutableFile(atPath: lifeline) ? ChildRun(lifeline, arguments).summary : "(no binary)")
            }
            print(line)
        }
    }

    /// Records `shape` into a log at `path` in `format` (unless `recording` is false: the log
    /// is there already), then reads it in-process: the events read, and events per second
    /// (median of the runs).
    private static func readingRate(
        of shape: Shape, events: Int, at path: String, format: TraceLogFormat, recording: Bool
    ) throws -> (events: Int, perSecond: Double) {
        if recording {
            try Lifeline.start(writingTo: path, options: RecordingOptions(logFormat: format))
            shape.record(events)
            Lifeline.stop()
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var count = 0
        let reading = median {
            let start = DispatchTime.now().uptimeNanoseconds
            count = (try? TraceReader.read(data))?.events.count ?? 0
            return DispatchTime.now().uptimeNanoseconds - start
        }
        return (count, Double(count) / reading * 1e9)
    }
}

/// One run of a command with its standard output thrown away: wall time and peak memory.
///
/// The command runs under GNU time (`/usr/bin/time`, which `make setup` installs), which
/// reports its peak memory: a child spawned straight from this process would report this
/// process's own peak instead when that is larger, because Linux carries a process's peak
/// resident size across the exec of the child it spawns.
struct ChildRun {
    let seconds: Double
    let peakMegabytes: Double
    let status: Int32

    init(_ executable: String, _ arguments: [String]) {
        let report = NSTemporaryDirectory() + "lifeline-benchmark-peak-\(getpid())"
        defer { unlink(report) }
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let timed = ["/usr/bin/time", "--format=%M", "--output=\(report)", executable] + arguments
        let argv = timed.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let start = DispatchTime.now().uptimeNanoseconds
        var pid: pid_t = 0
        guard posix_spawn(&pid, timed[0], &actions, nil, argv, environ) == 0 else {
            (seconds, peakMegabytes, status) = (0, 0, -1)
            return
        }
        posix_spawn_file_actions_destroy(&actions)
        var waitStatus: Int32 = 0
        waitpid(pid, &waitStatus, 0)
        seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let kilobytes = (try? String(contentsOfFile: report, encoding: .utf8))?
            .split(separator: "\n").last.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        peakMegabytes = (kilobytes ?? 0) / 1024
        status = (waitStatus & 0x7f) == 0 ? (waitStatus >> 8) & 0xff : 128 + (waitStatus & 0x7f)
    }

    /// `12.3 s 456 MB`, or the exit status too when the command failed (diagnose exits 1 when
    /// it finds errors, which counts as success here).
    var summary: String {
        let text = String(format: "%5.2f s %5.0f MB", seconds, peakMegabytes)
        let shown = status == 0 || status == 1 ? text : text + " exit \(status)"
        return shown.count >= 16 ? shown : shown.padding(toLength: 16, withPad: " ", startingAt: 0)
    }
}
