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
/// recording, then stop. What stop costs is mostly what is left of the call sites to
/// symbolicate, and symbolicated addresses are cached for the process, so the figure is taken
/// once, first thing for the apps' code in the process: a second stop would find every address
/// already resolved.
enum StopBenchmark {
    static func run(logDirectory: String) throws {
        let path = "\(logDirectory)/lifeline-stop-benchmark-\(getpid()).lifeline"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Lifeline.start(writingTo: path)
        let running = ContinuousClock.now
        runApps()
        let ran = ContinuousClock.now - running
        let stopping = ContinuousClock.now
        let cpu = SubscribeBenchmark.cpuNanoseconds()
        Lifeline.stop()
        let stopCPU = SubscribeBenchmark.cpuNanoseconds() - cpu
        let stopped = ContinuousClock.now - stopping
        let trace = try TraceReader.read(contentsOf: path)
        let pipelines = trace.objects.values.filter { $0.shortTypeName == "Sink" || $0.shortTypeName == "Assign" }.count
        print("Stop: the six realistic apps recorded in one run (\(trace.callSites.count) call sites, \(pipelines) sinks and assigns), ran \(milliseconds(ran)) ms")
        print("Lifeline.stop()".padding(toLength: 36, withPad: " ", startingAt: 0)
            + "\(milliseconds(stopped)) ms wall, " + String(format: "%.1f ms CPU", Double(stopCPU) / 1_000_000))
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
