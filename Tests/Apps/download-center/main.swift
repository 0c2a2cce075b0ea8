import AppMutations
import DownloadCenterApp
import Lifeline

// Set LIFELINE_TRACE=trace.lifeline to record this run. The marks split the run into its phases,
// for `lifeline render --between downloading closed`. The status bar lives as long as the app,
// so its pipelines are still running when the recording stops.
var app: DownloadCenterApp?
var summary: DownloadCenterApp.Summary?
Lifeline.recordingIfRequested {
    app = DownloadCenterApp(mutation: .requested)
    Lifeline.mark("downloading")
    app?.run()
    summary = app?.summary
    Lifeline.mark("closed")
    app?.tearDown()
}
if let summary {
    print("downloaded \(summary.downloaded), large file \(summary.largeBytes ?? 0) bytes, counted \(summary.totalBytes) bytes")
}
