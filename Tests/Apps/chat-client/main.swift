import ChatClientApp
import AppMutations
import Lifeline

// Set LIFELINE_TRACE=trace.lifeline to record this run. The marks split the run into its phases,
// for `lifeline render --between chatting closed`.
Lifeline.recordingIfRequested {
    let app = ChatClientApp(mutation: .requested)
    Lifeline.mark("chatting")
    app.run()
    Lifeline.mark("closed")
    app.tearDown()
    Lifeline.mark("done")
}
