import AppMutations
import AccountSettingsApp
import Lifeline

// Set LIFELINE_TRACE=trace.lifeline to record this run. The marks split the run into its phases,
// for `lifeline render --between settings closed`. The profile model outlives its screen (the
// app's bug), so its pipeline is still running when the recording stops.
var app: AccountSettingsApp?
var summary: AccountSettingsApp.Summary?
Lifeline.recordingIfRequested {
    app = AccountSettingsApp(mutation: .requested)
    Lifeline.mark("settings")
    _ = app?.run()
    summary = app?.summary
    Lifeline.mark("closed")
    app?.tearDown()
}
if let summary {
    print("registered \(summary.registered), messages \(summary.messages), drafts \(summary.drafts)")
    print("profile: \(summary.profile.map { "\($0)" } ?? "not shown")")
    print("form released: \(summary.formReleased), profile model outlived its screen: \(summary.profileModelOutlivedItsScreen) (\(summary.lastStatus ?? "no status"))")
}
