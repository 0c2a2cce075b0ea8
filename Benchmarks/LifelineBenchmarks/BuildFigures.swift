import Foundation
import Lifeline
import LifelineLog

/// The figures of the cost table (``CostTable``) as one build of the benchmark measures them:
/// the recording hot path, subscribing, per-call snapshots, stopping, the log's size and the
/// recorder's heap, each with the build (release or debug) it was measured in. A child process
/// measures them (`LIFELINE_BENCHMARK_ONLY=figures`) and prints them as one JSON object, which
/// the parent joins with the other build's.
struct BuildFigures: Codable {
    /// `release` or `debug`: the configuration this binary, and Lifeline in it, was built in.
    var build: String
    /// The values sent through ``ValueChain`` for each row.
    var values: Int
    /// Per value sent through the chain: untraced, the 32-byte reference store, the hook floor,
    /// and Lifeline's two modes (binary log).
    var untraced, reference, hookFloor, operatorMode, automaticMode: Elapsed
    /// The events each mode recorded per value.
    var operatorEventsPerValue, automaticEventsPerValue: Double
    /// Per pipeline subscribed and cancelled (``SubscribeBenchmark/subscribeAndCancel(_:operatorHop:)``):
    /// untraced, in operator mode (one `.lifeline(_:)` hop) and in automatic mode (call sites on).
    var subscribeUntraced, subscribeOperator, subscribeAutomatic: Elapsed
    /// The objects the view model kept alive while every call took a snapshot, and the
    /// percentiles of a call's time with its snapshot.
    var snapshotObjects: Int
    var snapshotMedian, snapshot99th, snapshotLongest: Elapsed
    /// `Lifeline.stop()` right after recording the six realistic apps, call sites on.
    var stop: Elapsed
    var stopCallSites: Int
    /// Log bytes per declared object after its type's first, and per subscribe/cancel cycle in
    /// each mode (binary log).
    var bytesPerLaterObject, bytesPerOperatorCycle, bytesPerAutomaticCycle: Double
    /// The recorder's heap growth over subscribe/cancel cycles in each mode.
    var operatorHeap, automaticHeap: FootprintBenchmark.HeapGrowth

    /// The configuration this binary was built in.
    static var currentBuild: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }

    /// Pipelines the per-call snapshot figure keeps alive: about 1,000 live objects.
    static let snapshotPipelines = 250
    /// Subscribes (and as many cancels) timed with a snapshot each.
    static let snapshotCalls = 250
    /// Pipelines subscribed and cancelled per subscribe figure.
    static let subscribeCount = 2_000

    /// Measures every figure in this process: `values` values through the chain, `cycles`
    /// subscribe/cancel cycles for the heap's growth, logs in `logDirectory`. The stop comes
    /// first: symbolicated call sites are cached for the process.
    static func measure(values: Int, cycles: Int, logDirectory: String) throws -> BuildFigures {
        let stopped = try StopBenchmark.measureOnce(idle: 0, logDirectory: logDirectory)

        _ = ValueChain.send(values, with: .none) // warm-up: page faults and lazy metadata
        func perValue(_ instrument: ValueChain.Instrument, recording options: RecordingOptions? = nil,
                      before: () -> Void = {}, after: () -> Void = {}) throws -> RecordingCost {
            try RecordingCost.measure("", values: values, instrument: instrument, recording: options,
                                      logDirectory: logDirectory, before: before, after: after)
        }
        let untraced = try perValue(.none), reference = try perValue(.recordBuffer())
        let counter = CountingIntrospection()
        let floor = try perValue(.none, before: { counter.enable() }, after: { counter.disable() })
        let operatorMode = try perValue(.lifeline, recording: RecordingOptions(automatic: false))
        let automaticMode = try perValue(.none, recording: RecordingOptions())

        _ = SubscribeBenchmark.subscribeAndCancel(subscribeCount) // warm-up
        func subscribing(operatorHop: Bool = false, recording options: RecordingOptions? = nil) throws -> Elapsed {
            let samples = try (0..<3).map { _ in
                guard let options else { return SubscribeBenchmark.subscribeAndCancel(subscribeCount, operatorHop: operatorHop) }
                let path = "\(logDirectory)/lifeline-figures-\(getpid()).lifeline"
                defer { try? FileManager.default.removeItem(atPath: path) }
                try Lifeline.start(writingTo: path, options: options)
                defer { Lifeline.stop() }
                return SubscribeBenchmark.subscribeAndCancel(subscribeCount, operatorHop: operatorHop)
            }
            return Elapsed.median(samples).per(subscribeCount)
        }

        let snapshots = try InspectionBenchmark.timePerCallSnapshots(pipelines: snapshotPipelines, calls: snapshotCalls)

        let path = "\(logDirectory)/lifeline-footprint-\(getpid()).lifeline"
        defer { try? FileManager.default.removeItem(atPath: path) }
        return BuildFigures(
            build: currentBuild, values: values,
            untraced: untraced.elapsed, reference: reference.elapsed, hookFloor: floor.elapsed,
            operatorMode: operatorMode.elapsed, automaticMode: automaticMode.elapsed,
            operatorEventsPerValue: operatorMode.eventsPerValue ?? 0, automaticEventsPerValue: automaticMode.eventsPerValue ?? 0,
            subscribeUntraced: try subscribing(),
            subscribeOperator: try subscribing(operatorHop: true, recording: RecordingOptions(automatic: false)),
            subscribeAutomatic: try subscribing(recording: RecordingOptions()),
            snapshotObjects: snapshots.objects,
            snapshotMedian: percentile(snapshots.calls, 0.5), snapshot99th: percentile(snapshots.calls, 0.99),
            snapshotLongest: percentile(snapshots.calls, 1),
            stop: stopped.stop, stopCallSites: stopped.callSites,
            bytesPerLaterObject: try FootprintBenchmark.declarationCost(format: .binary, path: path).bytesPerLaterObject,
            bytesPerOperatorCycle: try FootprintBenchmark.cycleCost(automatic: false, format: .binary, path: path).total,
            bytesPerAutomaticCycle: try FootprintBenchmark.cycleCost(automatic: true, format: .binary, path: path).total,
            operatorHeap: try FootprintBenchmark.heapGrowth(cycles: cycles, automatic: false, path: path),
            automaticHeap: try FootprintBenchmark.heapGrowth(cycles: cycles, automatic: true, path: path)
        )
    }

    /// The `fraction` percentile of `samples`, CPU and wall time each taken from its own order.
    static func percentile(_ samples: [Elapsed], _ fraction: Double) -> Elapsed {
        let index = min(samples.count - 1, Int((Double(samples.count) * fraction).rounded(.up)) - 1)
        let position = max(0, index)
        return Elapsed(cpu: samples.map(\.cpu).sorted()[position], wall: samples.map(\.wall).sorted()[position])
    }
}
