import Foundation
import Lifeline
import LifelineHeap
import LifelineLog
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// Prints what one heap inspection (the work of one snapshot) costs on two graphs: a view model
/// holding the cancellables of sink pipelines, and a binary tree of plain classes.
enum InspectionBenchmark {
    /// A screen's view model: subjects, and a set of the cancellables of pipelines that sink
    /// into it.
    final class ViewModel {
        var subjects: [PassthroughSubject<Int, Never>] = []
        var cancellables = Set<AnyCancellable>()
        var total = 0

        init(pipelines: Int) {
            for _ in 0..<pipelines {
                let subject = PassthroughSubject<Int, Never>()
                subject.map { $0 &+ 1 }.filter { $0 > 0 }.sink { [weak self] in self?.total &+= $0 }
                    .store(in: &cancellables)
                subjects.append(subject)
            }
        }
    }

    /// A node of a complete binary tree of plain classes.
    final class TreeNode {
        let name: String
        var left: TreeNode?
        var right: TreeNode?
        weak var parent: TreeNode?

        init(depth: Int, parent: TreeNode? = nil) {
            name = "node \(depth)"
            self.parent = parent
            if depth > 0 {
                left = TreeNode(depth: depth - 1, parent: self)
                right = TreeNode(depth: depth - 1, parent: self)
            }
        }
    }

    static let inspections = 21

    static func run() {
        print("Heap inspection cost (one snapshot's walk), median of \(inspections) inspections;"
            + " cold: a new inspector each time (metadata validated again), warm: one inspector kept, as a recording keeps it")
        let viewModel = ViewModel(pipelines: 20)
        measure("view model, 20 sink pipelines", root: viewModel)
        let tree = TreeNode(depth: 9)
        measure("binary tree of plain classes", root: tree)
        measurePerCallSnapshots(pipelines: 200)
        measurePerCallSnapshots(pipelines: 1_000)
    }

    /// Inspects a view model of 20 pipelines `times` times with one inspector (warm), for
    /// callgrind.
    static func inspectRepeatedly(times: Int = 200) {
        let viewModel = ViewModel(pipelines: 20)
        let address = HeapInspector.address(of: viewModel)
        let inspector = HeapInspector()
        _ = inspector.inspect(roots: [address])
        var objects = 0
        for _ in 0..<times { objects += inspector.inspect(roots: [address]).nodes.count }
        withExtendedLifetime(viewModel) {}
        if objects == 0 { print("nothing inspected") }
    }

    /// What a per-call snapshot adds to a subscribe and a cancel while a view model keeps
    /// `pipelines` pipelines alive: the same calls recorded with snapshots after every call and
    /// with snapshots at stop only, time per call; and the CPU time of reading the per-call log
    /// back (its delta snapshot lines applied: what the reader pays for them), and the wall time
    /// and peak memory of `lifeline diagnose` and `lifeline snapshots` on it (child processes of
    /// the `lifeline` binary beside this one). `LIFELINE_BENCHMARK_KEEP_LOGS` keeps the log as
    /// `/dev/shm/lifeline-per-call-PIPELINES.jsonl`.
    static func measurePerCallSnapshots(pipelines: Int, calls: Int = 500) {
        func threadCPUTime() -> UInt64 {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
        }
        let lifeline = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("lifeline").path
        let keep = ProcessInfo.processInfo.environment["LIFELINE_BENCHMARK_KEEP_LOGS"] != nil
        var commands: [String] = []
        func cost(_ snapshots: RecordingOptions.SnapshotPolicy) -> (nanoseconds: Double, reads: Double, objects: Int, snapshots: Int, reading: Double) {
            let kept = keep && snapshots == .everyCall
            let path = kept ? "/dev/shm/lifeline-per-call-\(pipelines).jsonl" : "/dev/shm/lifeline-inspection-\(getpid()).jsonl"
            defer { if !kept { unlink(path) } }
            var objects = 0, elapsed: UInt64 = 0, reads: UInt64 = 0, snapshotCount = 0, reading: UInt64 = 0
            do {
                try Lifeline.start(writingTo: path, options: RecordingOptions(snapshots: snapshots, callSites: false))
                let model = ViewModel(pipelines: pipelines)
                Lifeline.snapshot("bound")
                let subject = PassthroughSubject<Int, Never>()
                let readsBefore = HeapInspector.memoryReadCount
                let start = threadCPUTime()
                for _ in 0..<calls {
                    subject.sink { _ in }.cancel()
                }
                elapsed = threadCPUTime() - start
                reads = HeapInspector.memoryReadCount - readsBefore
                withExtendedLifetime(model) {}
                Lifeline.stop()
                let readStart = threadCPUTime()
                let trace = try TraceReader.read(contentsOf: path)
                reading = threadCPUTime() - readStart
                snapshotCount = trace.snapshots.count
                objects = trace.snapshot(at: "bound")?.nodes.count ?? 0
                if snapshots == .everyCall, FileManager.default.isExecutableFile(atPath: lifeline) {
                    commands = ["diagnose", "snapshots"].map { "lifeline \($0) " + ChildRun(lifeline, [$0, path]).summary }
                }
            } catch {
                print("per-call snapshots: \(error)")
            }
            return (Double(elapsed) / Double(calls * 2), Double(reads) / Double(calls * 2), objects, snapshotCount, Double(reading))
        }
        let atStop = cost(.atStop), everyCall = cost(.everyCall)
        print(String(format: "per-call snapshot among %5d live objects (a subscribe or a cancel, %d each)  %7.1f µs/snapshot CPU  %5.1f reads/snapshot",
                     everyCall.objects, calls, (everyCall.nanoseconds - atStop.nanoseconds) / 1_000, everyCall.reads)
            + String(format: "  reading its log (%d snapshots) %6.1f ms CPU", everyCall.snapshots, everyCall.reading / 1_000_000)
            + commands.map { "  " + $0 }.joined())
    }

    /// Each subscribe and each cancel of `calls` short pipelines, timed one by one, recorded
    /// with a snapshot after every call while a view model keeps `pipelines` pipelines alive
    /// (call sites off): what the program waits for at each call. Returns the objects the first
    /// snapshot held and the calls' times.
    static func timePerCallSnapshots(pipelines: Int, calls: Int) throws -> (objects: Int, calls: [Elapsed]) {
        let path = "/dev/shm/lifeline-per-call-times-\(getpid()).jsonl"
        defer { unlink(path) }
        try Lifeline.start(writingTo: path, options: RecordingOptions(snapshots: .everyCall, callSites: false))
        let model = ViewModel(pipelines: pipelines)
        Lifeline.snapshot("bound")
        let subject = PassthroughSubject<Int, Never>()
        var times: [Elapsed] = []
        times.reserveCapacity(calls * 2)
        for _ in 0..<calls {
            var cancellable: AnyCancellable?
            times.append(Elapsed.measure { cancellable = subject.sink { _ in } })
            times.append(Elapsed.measure { cancellable?.cancel() })
        }
        withExtendedLifetime(model) {}
        Lifeline.stop()
        let objects = try TraceReader.read(contentsOf: path).snapshot(at: "bound")?.nodes.count ?? 0
        return (objects, times)
    }

    static func measure(_ name: String, root: AnyObject) {
        let address = HeapInspector.address(of: root)
        _ = HeapInspector().inspect(roots: [address])  // warm-up: the runtime's lazy type metadata
        for warm in [false, true] {
            let kept = HeapInspector()
            _ = kept.inspect(roots: [address])
            var samples: [UInt64] = []
            var objects = 0
            var reads: UInt64 = 0
            for _ in 0..<inspections {
                let inspector = warm ? kept : HeapInspector()
                let readsBefore = HeapInspector.memoryReadCount
                let start = DispatchTime.now().uptimeNanoseconds
                let graph = inspector.inspect(roots: [address])
                samples.append(DispatchTime.now().uptimeNanoseconds - start)
                reads = HeapInspector.memoryReadCount - readsBefore
                objects = graph.nodes.count
            }
            let microseconds = Double(samples.sorted()[inspections / 2]) / 1_000
            print("\("\(name), \(warm ? "warm" : "cold")".padding(toLength: 40, withPad: " ", startingAt: 0)) "
                + String(format: "%5d objects  %9.1f µs/inspection  %6.2f µs/object  %6.1f reads/object",
                         objects, microseconds, microseconds / Double(objects), Double(reads) / Double(objects)))
        }
        withExtendedLifetime(root) {}
    }
}
