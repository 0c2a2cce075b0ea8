// A program that hangs the way issue 27's cases do, for the tests of the waits-on chain: it
// records, sets up one pipeline that never delivers what the program waits for, says "ready"
// on standard output and blocks, so that the test kills it with SIGKILL and diagnoses the log
// it left. The same program fixed gets what it waits for, its pipeline ends, and it says
// "ready" and blocks all the same, to be killed the same way. (A case that hangs inside a call
// the program makes says "ready" itself, from inside the call.)
//
//   lifeline-hanging-child CASE hang|fixed LOG [OPTIONS]
//
// CASE is one of HangingCase's raw values: never-requested, silent-subject, unkept-promise,
// zip-one-side, blocked-receive, unfinished-inner, blocked-queue, ignored-demand; or `idle`,
// a program that records and makes no pipeline at all. OPTIONS are recording options as
// LIFELINE_OPTIONS gives them (`watchdog=1s,format=jsonl`): with a watchdog, the hung program
// writes a hang record while the test waits; without, SIGQUIT still makes it write one.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Lifeline

/// Writes `text` and a newline to standard output (or `handle`) at once, unbuffered: the test
/// reads it and kills this process as soon as it does.
func say(_ text: String, to handle: FileHandle = .standardOutput) {
    handle.write(Data((text + "\n").utf8))
}

let arguments = CommandLine.arguments
let hangingCase = arguments.count > 1 ? HangingCase(rawValue: arguments[1]) : nil
guard arguments.count == 4 || arguments.count == 5, hangingCase != nil || arguments[1] == "idle",
      arguments[2] == "hang" || arguments[2] == "fixed" else {
    let cases = HangingCase.allCases.map(\.rawValue).joined(separator: "|")
    say("usage: lifeline-hanging-child \(cases)|idle hang|fixed LOG [OPTIONS]", to: .standardError)
    exit(2)
}
do {
    try Lifeline.start(writingTo: arguments[3], options: RecordingOptions(parsing: arguments.count == 5 ? arguments[4] : ""))
} catch {
    say("lifeline-hanging-child: cannot start recording: \(error)", to: .standardError)
    exit(2)
}
let done = DispatchSemaphore(value: 0)
let kept = hangingCase?.run(fixed: arguments[2] == "fixed") { done.signal() } ?? []
if arguments[2] == "fixed" && hangingCase != nil { done.wait() }
// Every event of the case is in the log: it was written before this line.
say("ready")
// The hung program waits for what never comes; the fixed one idles until it is killed.
done.wait()
withExtendedLifetime(kept) { pause() }
