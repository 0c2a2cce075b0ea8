import ChatClientApp
import Lifeline

// Set LIFELINE_TRACE=trace.lifeline to record this run. The marks split the run into its phases,
// for `lifeline render --between chatting closed`.
Lifeline.recordingIfRequested {
    let app = ChatClientApp()
    Lifeline.mark("chatting")
    app.run()
    Lifeline.mark("closed")
    app.tearDown()
    Lifeline.mark("done")
}
