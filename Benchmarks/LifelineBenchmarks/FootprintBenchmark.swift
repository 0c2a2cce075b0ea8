import CLifelineRuntime
import Foundation
import Lifeline
import LifelineLog
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// Prints what recording leaves behind rather than what it costs in time: the log's bytes per
/// declared object, for the first object of a type and for the ones after it; the log's bytes
/// per subscribe/cancel cycle of a short pipeline, in operator and automatic mode; and how much
/// the recorder's heap grows over many such cycles, and once the log is full.
///
/// Heap growth is what glibc's `mallinfo2()` counts in use (`uordblks + hblkhd`): the bytes the
/// process has allocated with malloc and not freed, large blocks mapped on their own included.
/// The log itself is a mapped file, not malloc'd, so it is not counted;
/// the cycles allocate nothing that outlives them untraced, so what grows is the recorder's.
enum FootprintBenchmark {
    /// A type whose name is long: every object of a pipeline of them has it in its own type's
    /// name, as real generic pipelines do.
    struct Nested<Inner> {}
    typealias Deep8 = Nested<Nested<Nested<Nested<Nested<Nested<Nested<Nested<Int>>>>>>>>
    typealias Deep64 = Nested<Nested<Nested<Nested<Nested<Nested<Nested<Nested<Deep8>>>>>>>>
    typealias LongNamed = Nested<Nested<Deep64>>

    /// The bytes of a log's declarations: its `type` lines, and its object lines.
    struct Declarations {
        var typeLines = 0
        var typeBytes = 0
        var objectLines = 0
        var objectBytes = 0

        /// Adds up the declaration lines of the log at `path`.
        init(ofLogAt path: String) throws {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            for line in data.split(separator: UInt8(ascii: "\n")) {
                if line.starts(with: Array("{\"kind\":\"type\"".utf8)) {
                    typeLines += 1
                    typeBytes += line.count + 1
                } else if line.starts(with: Array("{\"kind\":\"object\"".utf8)) {
                    objectLines += 1
                    objectBytes += line.count + 1
                }
            }
        }
    }

    static func run(cycles: Int, logDirectory: String) throws {
        let path = "\(logDirectory)/lifeline-footprint-\(getpid()).log"
        defer { try? FileManager.default.removeItem(atPath: path) }
        print("Log and heap footprint (log bytes from the file after Lifeline.stop(); heap: mallinfo2 uordblks + hblkhd, malloc'd bytes in use, the mapped log not counted)")
        for format in TraceLogFormat.allCases {
            try printDeclarations(format: format, path: path)
        }
        for format in TraceLogFormat.allCases {
            for automatic in [false, true] {
                let cycle = try cycleCost(automatic: automatic, format: format, path: path)
                print(String(format: "%@ %7.1f log bytes per subscribe/cancel cycle, %5.1f of them declarations",
                             "\(automatic ? "automatic, subject.sink" : "operator, subject.lifeline(\"x\").sink"), \(format.rawValue):"
                                .padding(toLength: 52, withPad: " ", startingAt: 0),
                             cycle.total, cycle.declarations))
            }
        }
        for automatic in [false, true] {
            try printHeapGrowth(cycles: cycles, automatic: automatic, path: path)
        }
    }

    /// What the declarations of long-named objects took in a log.
    struct DeclarationCost {
        /// The first pipeline's objects, their types, and their declarations' bytes.
        var firstObjects: Int, firstTypes: Int, firstBytes: Int
        /// The bytes of a type line, on average over the first pipeline's.
        var bytesPerTypeLine: Double
        /// The declaration bytes per object of the 1,000 pipelines after the first, whose types it
        /// declared already, and how many types they declared more.
        var bytesPerLaterObject: Double, laterTypes: Int
    }

    /// Records 1 pipeline, then 1 + 1,000, of long-named objects kept alive, and prints what
    /// their declarations took.
    private static func printDeclarations(format: TraceLogFormat, path: String) throws {
        let cost = try declarationCost(format: format, path: path)
        print(String(format: "%@ first pipeline %d objects, %d types, %d bytes (%.0f a type line); later: %.1f bytes per object, %d types more",
                     "declarations, long type names, \(format.rawValue):".padding(toLength: 44, withPad: " ", startingAt: 0),
                     cost.firstObjects, cost.firstTypes, cost.firstBytes, cost.bytesPerTypeLine, cost.bytesPerLaterObject, cost.laterTypes))
    }

    /// Records 1 pipeline, then 1 + 1,000, of long-named objects kept alive, in `format`: what
    /// their declarations took.
    static func declarationCost(format: TraceLogFormat, path: String) throws -> DeclarationCost {
        func declarations(pipelines: Int) throws -> Declarations {
            try Lifeline.start(writingTo: path, options: RecordingOptions(snapshots: .none, callSites: false, logFormat: format))
            let subject = PassthroughSubject<LongNamed, Never>()
            var kept: [AnyCancellable] = []
            for _ in 0..<pipelines { kept.append(subject.map { $0 }.sink { _ in }) }
            Lifeline.stop()
            withExtendedLifetime(kept) {}
            return try Declarations(ofLogAt: path)
        }
        let one = try declarations(pipelines: 1), many = try declarations(pipelines: 1_001)
        let laterObjects = many.objectLines - one.objectLines
        return DeclarationCost(
            firstObjects: one.objectLines, firstTypes: one.typeLines, firstBytes: one.typeBytes + one.objectBytes,
            bytesPerTypeLine: Double(one.typeBytes) / Double(max(one.typeLines, 1)),
            bytesPerLaterObject: Double(many.typeBytes + many.objectBytes - one.typeBytes - one.objectBytes) / Double(max(laterObjects, 1)),
            laterTypes: many.typeLines - one.typeLines
        )
    }

    /// The log's size after `cycles` subscribe/cancel cycles, and the bytes of its declarations.
    private static func logBytes(cycles: Int, automatic: Bool, format: TraceLogFormat, path: String) throws -> (total: Int, declarations: Int) {
        try Lifeline.start(writingTo: path, options: RecordingOptions(automatic: automatic, logFormat: format))
        runCycles(cycles, automatic: automatic)
        Lifeline.stop()
        let declarations = try Declarations(ofLogAt: path)
        return (try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int, declarations.typeBytes + declarations.objectBytes)
    }

    /// The log bytes of one subscribe/cancel cycle, and of its declarations: the difference
    /// between 101,000 cycles and 1,000, per cycle.
    static func cycleCost(automatic: Bool, format: TraceLogFormat, path: String) throws -> (total: Double, declarations: Double) {
        let small = try logBytes(cycles: 1_000, automatic: automatic, format: format, path: path)
        let large = try logBytes(cycles: 101_000, automatic: automatic, format: format, path: path)
        return (Double(large.total - small.total) / 100_000, Double(large.declarations - small.declarations) / 100_000)
    }

    /// Subscribes a short pipeline to one subject and cancels it, `count` times.
    private static func runCycles(_ count: Int, automatic: Bool) {
        let subject = PassthroughSubject<Int, Never>()
        for _ in 0..<count {
            let cancellable = automatic ? subject.sink { _ in } : subject.lifeline("x").sink { _ in }
            cancellable.cancel()
        }
    }

    /// How much the recorder's heap grew over subscribe/cancel cycles.
    struct HeapGrowth: Codable {
        var cycles: Int
        var bytes: Int
        /// The cycles run after a 64 MiB log was full, and the bytes the heap grew over them; nil
        /// when the log never filled.
        var afterFull: Int?, bytesAfterFull: Int?
    }

    /// Prints the heap's growth over `cycles` cycles after 10,000 to warm up, and over the
    /// cycles after a 64 MiB log is full.
    private static func printHeapGrowth(cycles: Int, automatic: Bool, path: String) throws {
        let growth = try heapGrowth(cycles: cycles, automatic: automatic, path: path)
        var line = String(format: "%@ heap grew %+d bytes over %d cycles (%+.1f bytes a cycle)",
                          "\(automatic ? "automatic" : "operator"), 64 MiB log:".padding(toLength: 30, withPad: " ", startingAt: 0),
                          growth.bytes, cycles, Double(growth.bytes) / Double(cycles))
        if let afterFull = growth.afterFull, let bytesAfterFull = growth.bytesAfterFull {
            line += String(format: "; %+d bytes over the %d cycles after the log was full", bytesAfterFull, afterFull)
        } else {
            line += "; the log never filled"
        }
        print(line)
    }

    /// The heap's growth over `cycles` cycles after 10,000 to warm up, and over the cycles after
    /// a 64 MiB log is full.
    static func heapGrowth(cycles: Int, automatic: Bool, path: String) throws -> HeapGrowth {
        let capacity = 64 << 20
        try Lifeline.start(writingTo: path, options: RecordingOptions(automatic: automatic, logCapacity: capacity))
        runCycles(10_000, automatic: automatic)
        let before = heapInUse()
        var full: (cycles: Int, heap: Int)?
        let step = 10_000
        var done = 0
        while done < cycles {
            runCycles(min(step, cycles - done), automatic: automatic)
            done += min(step, cycles - done)
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            if full == nil && size >= capacity - (1 << 20) { full = (done, heapInUse()) }
        }
        let after = heapInUse()
        Lifeline.stop()
        return HeapGrowth(cycles: cycles, bytes: after - before, afterFull: full.map { cycles - $0.cycles }, bytesAfterFull: full.map { after - $0.heap })
    }

    /// The bytes malloc has handed out and not taken back.
    private static func heapInUse() -> Int {
        lifeline_malloc_in_use()
    }
}
