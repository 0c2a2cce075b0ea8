// A program that records and then ends the way the crash-safety tests need: it exits without
// stopping the recording, or records until it is killed, reporting its progress on standard
// output so that the test knows what the log must hold.
//
//   lifeline-recording-child exit LOG COUNT
//       records COUNT values through a pipeline and COUNT marks, then exits without stop().
//   lifeline-recording-child stop LOG COUNT
//       records COUNT values through a pipeline, stops recording and prints "stopped".
//   lifeline-recording-child churn LOG SNAPSHOT-EVERY
//       records pipelines forever; after each round prints "recorded N" (the round's mark
//       "round N" is then in the log), and every SNAPSHOT-EVERY rounds prints "snapshot N"
//       and takes a snapshot labelled "snapshot N".
//
// An optional last argument holds the recording options, as LIFELINE_OPTIONS writes them
// (`format=jsonl`); without it the child records with the default options.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Lifeline
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// Writes `text` and a newline to `descriptor` at once, unbuffered: the test reads it while
/// this process may be killed at any moment.
func say(_ text: String, to descriptor: Int32 = 1) {
    var line = text + "\n"
    line.withUTF8 { bytes in
        var written = 0
        while written < bytes.count {
            let result = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if result <= 0 { exit(3) }
            written += result
        }
    }
}

func fail(_ message: String) -> Never {
    say("lifeline-recording-child: \(message)", to: 2)
    exit(2)
}

/// One short pipeline: a subject, three operators and a sink, sent `count` values.
func runPipeline(values count: Int, keepingAliveIn kept: inout [AnyCancellable]) {
    let subject = PassthroughSubject<Int, Never>()
    var total = 0
    let cancellable = subject.map { $0 * 2 }.filter { $0 % 3 != 0 }.map { $0 + 1 }.sink { total += $0 }
    for value in 0..<count { subject.send(value) }
    kept.append(cancellable)
}

let arguments = CommandLine.arguments
guard arguments.count == 4 || arguments.count == 5, let number = Int(arguments[3]) else {
    fail("usage: lifeline-recording-child exit|stop|churn LOG NUMBER [OPTIONS]")
}
do {
    let options = arguments.count == 5 ? try RecordingOptions(parsing: arguments[4]) : RecordingOptions()
    try Lifeline.start(writingTo: arguments[2], options: options)
} catch {
    fail("cannot start recording: \(error)")
}
var kept: [AnyCancellable] = []
switch arguments[1] {
case "exit":
    runPipeline(values: number, keepingAliveIn: &kept)
    for index in 1...max(number, 1) { Lifeline.mark("mark \(index)") }
    say("recorded \(number)")
    exit(0)
case "stop":
    runPipeline(values: number, keepingAliveIn: &kept)
    Lifeline.stop()
    say("stopped")
    exit(0)
case "churn":
    for round in 1... {
        runPipeline(values: 5, keepingAliveIn: &kept)
        // Enough live pipelines for a snapshot to take a while, not so many that rounds slow.
        if kept.count > 60 { kept.removeFirst() }
        Lifeline.mark("round \(round)")
        say("recorded \(round)")
        if round.isMultiple(of: number) {
            say("snapshot \(round)")
            Lifeline.snapshot("snapshot \(round)")
        }
    }
default:
    fail("unknown mode \(arguments[1])")
}
