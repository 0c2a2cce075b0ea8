import AccountSettingsApp
import ChatClientApp
import DownloadCenterApp
import Foundation
import Lifeline
import LifelineLog
import NewsReaderApp
import PhotoBackupApp
import PortfolioApp

/// Prints how long `Lifeline.stop()` takes after recording an app-sized run with call sites
/// on (the default): the six realistic apps of Tests/Apps, one after the other, in one
/// recording, then stop at once, and again with the program idle for ``idleSeconds`` before
/// stop, as an app that runs a while is (the recorder symbolicates call sites on a
/// low-priority thread while the program runs). What stop costs is mostly what is left of the
/// call sites to symbolicate, and symbolicated addresses are cached for the process, so each
/// figure comes from a fresh process: the benchmark runs itself with
/// `LIFELINE_BENCHMARK_ONLY=stopping-once` (and `LIFELINE_BENCHMARK_STOP_IDLE` seconds).
enum StopBenchmark {
    static let idleSeconds = 10

    /// Prints both figures, each measured in a child process.
    static func run(logDirectory: String) throws {
        for idle in [0, idleSeconds] {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            child.arguments = ["1", logDirectory]
            var environment = ProcessInfo.processInfo.environment
            environment["LIFELINE_BENCHMARK_ONLY"] = "stopping-once"
            environment["LIFELINE_BENCHMARK_STOP_IDLE"] = String(idle)
            child.environment = environment
            try child.run()
            child.waitUntilExit()
        }
    }

    /// What one recorded run of the apps left to `Lifeline.stop()`.
    struct Stop {
        /// How long the apps ran, recorded.
        let ran: Duration
        /// What `Lifeline.stop()` took.
        let stop: Elapsed
        let callSites: Int
        /// The sinks and assigns the apps subscribed.
        let pipelines: Int
    }

    /// Records the apps, idles `idle` seconds, stops, and prints what stopping took.
    static func runOnce(idle: Int, logDirectory: String) throws {
        let measured = try measureOnce(idle: idle, logDirectory: logDirectory)
        if idle == 0 {
            print("Stop: the six realistic apps recorded in one run (\(measured.callSites) call sites, \(measured.pipelines) sinks and assigns), ran \(milliseconds(measured.ran)) ms")
        }
        let name = idle == 0 ? "Lifeline.stop() right after" : "Lifeline.stop() after \(idle) s idle"
        print(name.padding(toLength: 36, withPad: " ", startingAt: 0)
            + String(format: "%.1f ms wall, %.1f ms CPU", measured.stop.wall / 1_000_000, measured.stop.cpu / 1_000_000))
    }

    /// Records the apps, idles `idle` seconds and stops: what stopping took. Symbolicated call
    /// sites are cached for the process, so only a process's first call measures a stop.
    static func measureOnce(idle: Int, logDirectory: String) throws -> Stop {
        let path = "\(logDirectory)/lifeline-stop-benchmark-\(getpid()).lifeline"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Lifeline.start(writingTo: path)
        let running = ContinuousClock.now
        runApps()
        let ran = ContinuousClock.now - running
        if idle > 0 { sleep(UInt32(idle)) }
        let stop = Elapsed.measure { Lifeline.stop() }
        let trace = try TraceReader.read(contentsOf: path)
        let pipelines = trace.objects.values.filter { $0.shortTypeName == "Sink" || $0.shortTypeName == "Assign" }.count
        return Stop(ran: ran, stop: stop, callSites: trace.callSites.count, pipelines: pipelines)
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.1f", Double(seconds) * 1_000 + Double(attoseconds) / 1e15)
    }

    private static func runApps() {
        let news = NewsReaderApp()
        news.run()
        news.tearDown()
        let portfolio = PortfolioApp()
        _ = portfolio.run()
        portfolio.tearDown()
        let chat = ChatClientApp()
        _ = chat.run()
        chat.tearDown()
        let photos = PhotoBackupApp()
        _ = photos.run()
        photos.tearDown()
        let downloads = DownloadCenterApp()
        _ = downloads.run()
        downloads.tearDown()
        let settings = AccountSettingsApp()
        _ = settings.run()
        settings.tearDown()
    }
}
