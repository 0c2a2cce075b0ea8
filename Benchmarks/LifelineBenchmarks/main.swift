import Foundation
import Lifeline
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// Prints what recording costs on a PassthroughSubject → map → filter → map → sink chain.
/// (A `(0..<n).publisher.map.filter` chain would fuse into one Sequence publisher in
/// OpenCombine and measure no hops.)
let values = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000
let repetitions = 3
/// Where the logs go: tmpfs by default, to measure recording rather than the disk's writeback
/// (the second argument names another directory).
let logDirectory = CommandLine.arguments.dropFirst(2).first ?? "/dev/shm"

/// OpenCombine's own floor for automatic mode: a hook handler that only counts.
final class CountingIntrospection: _Introspection, @unchecked Sendable {
    var events = 0
    func willReceive<P: Publisher, S: Subscriber>(publisher: P, subscriber: S) where P.Failure == S.Failure, P.Output == S.Input { events += 1 }
    func didReceive<P: Publisher, S: Subscriber>(publisher: P, subscriber: S) where P.Failure == S.Failure, P.Output == S.Input { events += 1 }
    func willReceive<S: Subscriber>(subscriber: S, subscription: Subscription) { events += 1 }
    func didReceive<S: Subscriber>(subscriber: S, subscription: Subscription) { events += 1 }
    func willReceive<S: Subscriber>(subscriber: S, input: S.Input) { events += 1 }
    func didReceive<S: Subscriber>(subscriber: S, input: S.Input, resultingDemand: Subscribers.Demand) { events += 1 }
    func willReceive<S: Subscriber>(subscriber: S, completion: Subscribers.Completion<S.Failure>) { events += 1 }
    func didReceive<S: Subscriber>(subscriber: S, completion: Subscribers.Completion<S.Failure>) { events += 1 }
    func willRequest(subscription: Subscription, _ demand: Subscribers.Demand) { events += 1 }
    func didRequest(subscription: Subscription, _ demand: Subscribers.Demand) { events += 1 }
    func willCancel(subscription: Subscription) { events += 1 }
    func didCancel(subscription: Subscription) { events += 1 }
}

/// Sends `values` through the chain and returns the nanoseconds the sends took.
func sendThroughChain(labelled: Bool) -> UInt64 {
    let subject = PassthroughSubject<Int, Never>()
    var total = 0
    let cancellable: AnyCancellable
    if labelled {
        cancellable = subject.lifeline("subject")
            .map { $0 &+ 1 }.lifeline("map")
            .filter { $0 > 0 }.lifeline("filter")
            .map { $0 &* 2 }.lifeline("map 2")
            .sink { total &+= $0 }
    } else {
        cancellable = subject.map { $0 &+ 1 }.filter { $0 > 0 }.map { $0 &* 2 }.sink { total &+= $0 }
    }
    let start = DispatchTime.now().uptimeNanoseconds
    for value in 0..<values { subject.send(value) }
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    cancellable.cancel()
    precondition(total != 0)
    return elapsed
}

func median(_ run: () throws -> UInt64) rethrows -> Double {
    var samples: [UInt64] = []
    for _ in 0..<repetitions { samples.append(try run()) }
    return Double(samples.sorted()[repetitions / 2])
}

func recorded(_ options: RecordingOptions, labelled: Bool) throws -> (nanoseconds: UInt64, events: Int) {
    let path = "\(logDirectory)/lifeline-benchmark.jsonl"
    defer { try? FileManager.default.removeItem(atPath: path) }
    try Lifeline.start(writingTo: path, options: options)
    let elapsed = sendThroughChain(labelled: labelled)
    Lifeline.stop()
    return (elapsed, try eventLineCount(path))
}

/// The number of event lines in a log, counted by scanning its bytes: reading millions of lines
/// back through `TraceReader` would take longer than the run being measured.
func eventLineCount(_ path: String) throws -> Int {
    let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
    let prefix = Array("\n{\"seq\":".utf8)
    return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Int in
        var count = 0
        var index = bytes.startIndex
        while index + prefix.count <= bytes.endIndex {
            guard let newline = memchr(bytes.baseAddress! + index, 0x0A, bytes.count - index) else { break }
            index = bytes.baseAddress!.distance(to: UnsafeRawPointer(newline))
            if index + prefix.count <= bytes.endIndex, prefix.indices.allSatisfy({ bytes[index + $0] == prefix[$0] }) {
                count += 1
            }
            index += 1
        }
        return count
    }
}

func row(_ name: String, perValue: Double, eventsPerValue: Double?, baseline: Double) {
    let perValueText = String(format: "%9.1f", perValue)
    guard let eventsPerValue, eventsPerValue > 0 else {
        print("\(name.padding(toLength: 36, withPad: " ", startingAt: 0)) \(perValueText) ns/value")
        return
    }
    let perEvent = (perValue - baseline) / eventsPerValue
    print("\(name.padding(toLength: 36, withPad: " ", startingAt: 0)) \(perValueText) ns/value  "
        + String(format: "%5.1f events/value  %7.1f ns/event added  %5.1f× untraced", eventsPerValue, perEvent, perValue / baseline))
}

print("Lifeline recording cost: PassthroughSubject → map → filter → map → sink, \(values) values, median of \(repetitions), logs in \(logDirectory)")
_ = sendThroughChain(labelled: false) // warm-up: the first run pays for page faults and lazy metadata
let untraced = median { sendThroughChain(labelled: false) } / Double(values)
row("untraced", perValue: untraced, eventsPerValue: nil, baseline: untraced)

let counter = CountingIntrospection()
var hookEvents = 0
let floor = median {
    counter.events = 0
    counter.enable()
    let elapsed = sendThroughChain(labelled: false)
    counter.disable()
    hookEvents = counter.events
    return elapsed
} / Double(values)
row("hook floor (handler that counts)", perValue: floor, eventsPerValue: Double(hookEvents) / Double(values), baseline: untraced)

var automaticEvents = 0
let automatic = try median {
    let run = try recorded(RecordingOptions(), labelled: false)
    automaticEvents = run.events
    return run.nanoseconds
} / Double(values)
row("automatic mode", perValue: automatic, eventsPerValue: Double(automaticEvents) / Double(values), baseline: untraced)

let labelledUntraced = median { sendThroughChain(labelled: true) } / Double(values)
row(".lifeline at 4 hops, not recording", perValue: labelledUntraced, eventsPerValue: nil, baseline: untraced)

var operatorEvents = 0
let operatorMode = try median {
    let run = try recorded(RecordingOptions(automatic: false), labelled: true)
    operatorEvents = run.events
    return run.nanoseconds
} / Double(values)
row("operator mode (.lifeline at 4 hops)", perValue: operatorMode, eventsPerValue: Double(operatorEvents) / Double(values), baseline: untraced)
print("automatic mode costs \(String(format: "%.1f", (automatic - untraced) / (floor - untraced)))× the hook floor's added time")

print()
try SubscribeBenchmark.run(repetitions: repetitions, logDirectory: logDirectory)

print()
InspectionBenchmark.run()

print()
try ReadingBenchmark.run(events: 1_000_000, logDirectory: logDirectory)
