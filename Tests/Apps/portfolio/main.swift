import AppMutations
import Lifeline
import PortfolioApp

// Set LIFELINE_TRACE=trace.jsonl to record this run. The marks split the run into its phases,
// for `lifeline render --between trading closed`.
Lifeline.recordingIfRequested {
    let app = PortfolioApp(mutation: .requested)
    Lifeline.mark("trading")
    app.run()
    Lifeline.mark("closed")
    app.tearDown()
    Lifeline.mark("done")
}
