import AppMutations
import Lifeline
import PhotoBackupApp

// Set LIFELINE_TRACE=trace.lifeline to record this run. The marks split the run into its phases,
// for `lifeline render --between browsing closed`. The backup lives as long as the app, so it is
// still running when the recording stops; the app quits after that.
var app: PhotoBackupApp?
Lifeline.recordingIfRequested {
    app = PhotoBackupApp(mutation: .requested)
    Lifeline.mark("browsing")
    app?.run()
    Lifeline.mark("closed")
    app?.tearDown()
}
if let app {
    let progress = app.backupProgress
    print("uploaded \(progress.uploaded), refused \(progress.refused)")
    app.quit()
}
