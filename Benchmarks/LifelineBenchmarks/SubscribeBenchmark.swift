import Foundation
import Lifeline
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// Prints what recording costs per pipeline rather than per value: subscribing a
/// PassthroughSubject → map → filter → sink pipeline and cancelling it, untraced, recorded
/// without call sites and recorded with them (a stack capture at each top-level subscribe, at
/// the sink's request and at each top-level cancel), and what symbolicating the call sites adds
/// to `Lifeline.stop()`. Then subscribing 1,000 pipelines into one view model that keeps them
/// all alive: what a screen full of bindings costs, where the cost of each subscribe must not
/// grow with the number of live objects. Times are the thread's CPU time, so that other
/// processes on a loaded machine count less.
enum SubscribeBenchmark {
    static let pipelines = 10_000
    static let viewModelPipelines = 1_000

    /// A view model that keeps every pipeline it subscribes.
    final class ViewModel {
        let subject = PassthroughSubject<Int, Never>()
        var cancellables = Set<AnyCancellable>()
        var total = 0
    }

    /// Subscribes `count` pipelines into one view model, which keeps them; returns the CPU
    /// nanoseconds that took.
    static func subscribeIntoViewModel(_ count: Int = viewModelPipelines) -> UInt64 {
        let model = ViewModel()
        let start = cpuNanoseconds()
        for _ in 0..<count {
            model.subject.map { $0 &+ 1 }.sink { [weak model] in model?.total &+= $0 }.store(in: &model.cancellables)
        }
        let elapsed = cpuNanoseconds() - start
        precondition(model.cancellables.count == count)
        return elapsed
    }

    /// The nanoseconds of subscribing `count` pipelines into a view model while recording.
    static func recordedViewModel(_ count: Int = viewModelPipelines, in directory: String) throws -> UInt64 {
        let path = "\(directory)/lifeline-subscribe-benchmark.jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Lifeline.start(writingTo: path, options: RecordingOptions(snapshots: .none, callSites: false))
        let elapsed = subscribeIntoViewModel(count)
        Lifeline.stop()
        return elapsed
    }

    /// The calling thread's CPU time in nanoseconds.
    static func cpuNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Subscribes and cancels `count` pipelines, each with a `.lifeline(_:)` hop before its sink
    /// when `operatorHop` (what operator mode records); returns what that took.
    static func subscribeAndCancel(_ count: Int = pipelines, operatorHop: Bool = false) -> Elapsed {
        let subject = PassthroughSubject<Int, Never>()
        var total = 0
        let elapsed = Elapsed.measure {
            for _ in 0..<count {
                let filtered = subject.map { $0 &+ 1 }.filter { $0 > 0 }
                let cancellable = operatorHop ? filtered.lifeline("pipeline").sink { total &+= $0 } : filtered.sink { total &+= $0 }
                cancellable.cancel()
            }
        }
        precondition(total == 0)
        return elapsed
    }

    /// The nanoseconds of subscribing and cancelling while recording, and of stopping.
    static func recorded(callSites: Bool, in directory: String) throws -> (run: UInt64, stop: UInt64) {
        let path = "\(directory)/lifeline-subscribe-benchmark.jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Lifeline.start(writingTo: path, options: RecordingOptions(callSites: callSites))
        let elapsed = UInt64(subscribeAndCancel().cpu)
        let stopping = cpuNanoseconds()
        Lifeline.stop()
        return (elapsed, cpuNanoseconds() - stopping)
    }

    static func run(repetitions: Int, logDirectory: String) throws {
        print("Subscribe + cancel cost: \(pipelines) pipelines (PassthroughSubject → map → filter → sink), median of \(repetitions)")
        _ = subscribeAndCancel() // warm-up
        func median(_ samples: [UInt64]) -> Double { Double(samples.sorted()[samples.count / 2]) }
        let untraced = median((0..<repetitions).map { _ in UInt64(subscribeAndCancel().cpu) })
        let without = try (0..<repetitions).map { _ in try recorded(callSites: false, in: logDirectory) }
        let with = try (0..<repetitions).map { _ in try recorded(callSites: true, in: logDirectory) }
        func line(_ name: String, _ nanoseconds: Double, stop: Double? = nil) {
            var text = name.padding(toLength: 36, withPad: " ", startingAt: 0)
                + String(format: "%9.2f µs/pipeline CPU", nanoseconds / Double(pipelines) / 1_000)
            if let stop { text += String(format: "   stop %7.1f ms CPU", stop / 1_000_000) }
            print(text)
        }
        line("untraced", untraced)
        line("automatic, call sites off", median(without.map(\.run)), stop: median(without.map(\.stop)))
        line("automatic, call sites on", median(with.map(\.run)), stop: median(with.map(\.stop)))
        print(String(format: "call sites add %.2f µs per pipeline (captures at its subscribe, the sink's request and its cancel)",
                     (median(with.map(\.run)) - median(without.map(\.run))) / Double(pipelines) / 1_000))
        let modelUntraced = median((0..<repetitions).map { _ in subscribeIntoViewModel() })
        let modelRecorded = median(try (0..<repetitions).map { _ in try recordedViewModel(in: logDirectory) })
        print(String(format: "%@ untraced %.2f ms CPU, automatic (call sites and snapshots off) %.2f ms CPU",
                     "\(viewModelPipelines) pipelines kept by one view model:".padding(toLength: 40, withPad: " ", startingAt: 0),
                     modelUntraced / 1_000_000, modelRecorded / 1_000_000))
        // Ten times the live objects: what recording adds to a subscribe must not grow with them.
        let many = viewModelPipelines * 10
        let manyUntraced = median((0..<repetitions).map { _ in subscribeIntoViewModel(many) })
        let manyRecorded = median(try (0..<repetitions).map { _ in try recordedViewModel(many, in: logDirectory) })
        print(String(format: "%@ untraced %.2f ms CPU, automatic %.2f ms CPU",
                     "\(many) pipelines kept by one view model:".padding(toLength: 40, withPad: " ", startingAt: 0),
                     manyUntraced / 1_000_000, manyRecorded / 1_000_000))
        print(String(format: "recording adds %.1f µs per pipeline with %d live, %.1f µs with %d",
                     (modelRecorded - modelUntraced) / Double(viewModelPipelines) / 1_000, viewModelPipelines,
                     (manyRecorded - manyUntraced) / Double(many) / 1_000, many))
    }
}
