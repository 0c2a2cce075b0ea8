import AppMutations
import Lifeline
import NewsReaderApp

// Set LIFELINE_TRACE=trace.jsonl to record this run. The marks split the run into its phases,
// for `lifeline render --between running tearing-down`.
Lifeline.recordingIfRequested {
    let app = NewsReaderApp(mutation: .requested)
    Lifeline.mark("running")
    app.run()
    Lifeline.mark("tearing-down")
    app.tearDown()
    Lifeline.mark("done")
}
