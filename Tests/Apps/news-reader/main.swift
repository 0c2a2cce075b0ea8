import Lifeline
import NewsReaderApp

// Set LIFELINE_TRACE=trace.jsonl to record this run.
Lifeline.recordingIfRequested {
    let app = NewsReaderApp()
    app.run()
    app.tearDown()
}
