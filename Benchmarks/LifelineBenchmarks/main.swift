import Foundation
import Lifeline
import LifelineLog

/// Prints what recording costs on the benchmark's chain (``ValueChain``), side by side with
/// what its peers cost, then what subscribing, heap inspection and reading cost.
///
/// Arguments: the number of values (1,000,000 by default) and the directory for the logs
/// (/dev/shm by default: tmpfs, to measure recording rather than the disk's writeback).
/// `LIFELINE_BENCHMARK_ONLY=untraced|floor|operator|automatic` sends the values through that
/// one configuration, once, and prints nothing else: for `valgrind --tool=callgrind
/// --toggle-collect='*sendValues*'`, which counts the instructions of the sends alone.
/// `operator-jsonl` and `automatic-jsonl` record JSON lines instead of binary records.
/// `recording` prints the recording-cost table alone, `subscribing` the subscribe figures alone.
/// `subscribe` and `view-model` record one run of ``SubscribeBenchmark``'s subscribes (for
/// `--toggle-collect='*SubscribeBenchmark*'`; `view-model` takes the number of pipelines in place
/// of the number of values, 1,000 by default). `reading` prints only the reading figures,
/// `inspection` only the heap inspection and snapshot figures, and `inspection-warm` inspects
/// the view model 200 times with one inspector and prints nothing (for
/// `--toggle-collect='*InspectionBenchmark*inspectRepeatedly*'`), `per-call` prints the per-call
/// snapshot figure among 803 objects alone (for `--toggle-collect='*SnapshotRecorder*take*'`),
/// `long-labels` how long drawing a log with a 30,000- to 120,000-character label takes,
/// `footprint` the log's bytes per declared object and per subscribe/cancel cycle and the
/// recorder's heap growth over the number of values as cycles (``FootprintBenchmark``).
/// `stopping` prints how long `Lifeline.stop()` takes after recording the six realistic apps,
/// right after them and after the program idled (``StopBenchmark``, each in a fresh child
/// process run with `stopping-once`).
/// `table` prints the cost table alone (``CostTable``): what each build, this one and the debug
/// build that `LIFELINE_BENCHMARK_DEBUG_BUILD` names, measures with `figures` (``BuildFigures``,
/// printed as JSON; `LIFELINE_BENCHMARK_CYCLES` subscribe/cancel cycles for the heap). Without
/// `LIFELINE_BENCHMARK_ONLY`, the table comes first, then every figure above.
let values = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000

// glibc's mutexes skip their atomic instructions while the process has a single thread, and an
// app never has: a second thread, parked for good, makes every row pay what it pays in an app,
// whether or not the recorder starts a thread of its own.
let parkedThread = Thread { while true { sleep(3600) } }
parkedThread.start()
let logDirectory = CommandLine.arguments.dropFirst(2).first ?? "/dev/shm"

let only = ProcessInfo.processInfo.environment["LIFELINE_BENCHMARK_ONLY"]
let standaloneModes: Set = ["recording", "subscribing", "stopping", "stopping-once", "table", "figures"]
if let only, !standaloneModes.contains(only) {
    // Removed before `exit`, which would skip a `defer`.
    let path = "\(logDirectory)/lifeline-benchmark-\(getpid()).jsonl"
    switch only {
    case "untraced": _ = ValueChain.send(values, with: .none)
    case "floor":
        let counter = CountingIntrospection()
        counter.enable()
        _ = ValueChain.send(values, with: .none)
        counter.disable()
    case "operator", "automatic", "operator-jsonl", "automatic-jsonl":
        let automatic = only.hasPrefix("automatic")
        try Lifeline.start(writingTo: path, options: RecordingOptions(
            automatic: automatic, logFormat: only.hasSuffix("-jsonl") ? .jsonLines : .binary
        ))
        _ = ValueChain.send(values, with: automatic ? .none : .lifeline)
        Lifeline.stop()
    case "subscribe":
        try Lifeline.start(writingTo: path, options: RecordingOptions(snapshots: .none, callSites: false))
        _ = SubscribeBenchmark.subscribeAndCancel()
        Lifeline.stop()
    case "view-model":
        try Lifeline.start(writingTo: path, options: RecordingOptions(snapshots: .none, callSites: false))
        // The number of values, when given, is the number of pipelines.
        _ = SubscribeBenchmark.subscribeIntoViewModel(CommandLine.arguments.count > 1 ? values : SubscribeBenchmark.viewModelPipelines)
        Lifeline.stop()
    case "reading":
        try ReadingBenchmark.run(events: values, logDirectory: logDirectory)
    case "inspection":
        InspectionBenchmark.run()
    case "inspection-warm":
        InspectionBenchmark.inspectRepeatedly()
    case "per-call":
        InspectionBenchmark.measurePerCallSnapshots(pipelines: 200, calls: 100)
    case "long-labels":
        try LongLabelBenchmark.run(logDirectory: logDirectory)
    case "footprint":
        try FootprintBenchmark.run(cycles: values, logDirectory: logDirectory)
    default:
        print("LIFELINE_BENCHMARK_ONLY must be untraced, floor, operator, automatic, operator-jsonl, automatic-jsonl, recording, subscribing, stopping, stopping-once, table, figures, subscribe, view-model, reading, inspection, inspection-warm, per-call, long-labels or footprint")
        exit(2)
    }
    try? FileManager.default.removeItem(atPath: path)
    exit(0)
}

if only == "figures" {
    let cycles = ProcessInfo.processInfo.environment["LIFELINE_BENCHMARK_CYCLES"].flatMap(Int.init) ?? 1_000_000
    let figures = try BuildFigures.measure(values: values, cycles: cycles, logDirectory: logDirectory)
    print(String(decoding: try JSONEncoder().encode(figures), as: UTF8.self))
    exit(0)
}

if only == nil || only == "table" {
    try CostTable.run(values: values, cycles: values, logDirectory: logDirectory)
    if only == "table" { exit(0) }
    print()
}

if only == "stopping" {
    try StopBenchmark.run(logDirectory: logDirectory)
    exit(0)
}

if only == "stopping-once" {
    let idle = ProcessInfo.processInfo.environment["LIFELINE_BENCHMARK_STOP_IDLE"].flatMap(Int.init) ?? 0
    try StopBenchmark.runOnce(idle: idle, logDirectory: logDirectory)
    exit(0)
}

if only == "subscribing" {
    try SubscribeBenchmark.run(repetitions: 3, logDirectory: logDirectory)
    exit(0)
}

if only == nil {
    try StopBenchmark.run(logDirectory: logDirectory)
    print()
}

print("Recording cost: PassthroughSubject → map → filter → map → sink, \(values) values, CPU time, median of 3, logs in \(logDirectory)")
_ = ValueChain.send(values, with: .none) // warm-up: the first run pays for page faults and lazy metadata
let untraced = try RecordingCost.measure("untraced", values: values, instrument: .none, logDirectory: logDirectory)
print(untraced.line(untraced: untraced.perValue))
let peers: [(String, ValueChain.Instrument, Int)] = [
    ("32-byte record per event, rdtsc", .recordBuffer(), values),
    // What the reference is made of: its 4 proxy hops alone, then with the atomic add and the
    // rdtsc each event needs to be numbered and timed, every record into the same slot.
    ("  of which its 4 hops, recording nothing", .recordBuffer(capacity: nil), values),
    ("  hops, number and rdtsc, into one slot", .recordBuffer(capacity: 1), values),
    // Even a recorder that dropped the global number and ordered events by time stamp alone.
    ("  hops and rdtsc, into one slot", .recordBuffer(capacity: 1, numbered: false), values),
    ("handleEvents at 4 hops, into an array", .handleEvents, values),
    // print() is slow: a twentieth of the values is enough.
    ("print() at 4 hops to a null stream", .print, max(1, values / 20)),
    (".lifeline at 4 hops, not recording", .lifeline, values),
]
for (name, instrument, count) in peers {
    let cost = try RecordingCost.measure(name, values: count, instrument: instrument, logDirectory: logDirectory)
    print(cost.line(untraced: untraced.perValue))
}

let counter = CountingIntrospection()
let floor = try RecordingCost.measure("hook floor (a handler that counts)", values: values, instrument: .none, logDirectory: logDirectory) {
    counter.enable()
} after: {
    counter.disable()
}
print(floor.line(untraced: untraced.perValue))
// Each mode with binary records (the default) and with JSON lines (what it wrote before).
for format in [TraceLogFormat.binary, .jsonLines] {
    let suffix = format == .binary ? "" : ", JSON lines"
    let operatorMode = try RecordingCost.measure(
        "operator mode (.lifeline at 4 hops)\(suffix)", values: values, instrument: .lifeline,
        recording: RecordingOptions(automatic: false, logFormat: format), logDirectory: logDirectory
    )
    print(operatorMode.line(untraced: untraced.perValue))
    let automatic = try RecordingCost.measure(
        "automatic mode\(suffix)", values: values, instrument: .none, recording: RecordingOptions(logFormat: format),
        logDirectory: logDirectory
    )
    print(automatic.line(untraced: untraced.perValue, floor: floor.perValue, floorName: "hook floor"))
}

print()
print("Longest single send, \(values) values each timed by the sending thread's CPU clock: the stalls a debounce or a timeout would notice")
let timedRows: [(String, ValueChain.Instrument, RecordingOptions?)] = [
    ("untraced", .none, nil),
    ("32-byte record per event, rdtsc", .recordBuffer(), nil),
    ("operator mode (.lifeline at 4 hops)", .lifeline, RecordingOptions(automatic: false)),
    ("automatic mode", .none, RecordingOptions()),
]
for (name, instrument, options) in timedRows {
    let cost = try RecordingCost.run(values: values, instrument: instrument, recording: options, logDirectory: logDirectory, timingEach: true).cost
    print(name.padding(toLength: 40, withPad: " ", startingAt: 0)
        + String(format: "longest %8.1f µs  %5d sends over 100 µs", Double(cost.longest ?? 0) / 1000, cost.over100Microseconds ?? 0))
}

if only == "recording" { exit(0) }

print()
try SubscribeBenchmark.run(repetitions: 3, logDirectory: logDirectory)

print()
InspectionBenchmark.run()

print()
try ReadingBenchmark.run(events: 1_000_000, logDirectory: logDirectory)

print()
try LongLabelBenchmark.run(logDirectory: logDirectory)

print()
try FootprintBenchmark.run(cycles: values, logDirectory: logDirectory)

/// The median of three runs of `run`, as a `Double` (ReadingBenchmark's timings).
func median(_ run: () throws -> UInt64) rethrows -> Double {
    var samples: [UInt64] = []
    for _ in 0..<3 { samples.append(try run()) }
    return Double(samples.sorted()[1])
}
