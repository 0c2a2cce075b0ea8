import Foundation

/// Prints what recording costs in the builds a user runs: the figures of ``BuildFigures`` as
/// a release build and a debug build of the benchmark measure them, side by side, CPU and wall
/// time, each next to its goal (issue 25). The goals are printed, not tested.
///
/// Each build measures its figures in a child process (`LIFELINE_BENCHMARK_ONLY=figures`): this
/// binary, and the debug build's binary that `LIFELINE_BENCHMARK_DEBUG_BUILD` names (`make
/// benchmark` builds it). The debug build sends `LIFELINE_BENCHMARK_DEBUG_VALUES` values (a tenth
/// of the release build's by default) and runs `LIFELINE_BENCHMARK_DEBUG_CYCLES` subscribe/cancel
/// cycles for the heap (a tenth by default): its figures are per value and per cycle.
enum CostTable {
    /// One column pair of the table: a build's figures.
    private typealias Column = BuildFigures

    static func run(values: Int, cycles: Int, logDirectory: String) throws {
        let environment = ProcessInfo.processInfo.environment
        var columns = [try measure(binary: CommandLine.arguments[0], values: values, cycles: cycles, logDirectory: logDirectory)]
        if let debug = environment["LIFELINE_BENCHMARK_DEBUG_BUILD"], columns[0].build != "debug" {
            let debugValues = environment["LIFELINE_BENCHMARK_DEBUG_VALUES"].flatMap(Int.init) ?? max(1, values / 10)
            let debugCycles = environment["LIFELINE_BENCHMARK_DEBUG_CYCLES"].flatMap(Int.init) ?? max(1, cycles / 10)
            columns.append(try measure(binary: debug, values: debugValues, cycles: debugCycles, logDirectory: logDirectory))
        }
        print(columns.map { "\($0.build): \($0.values) values, \($0.operatorHeap.cycles) heap cycles" }.joined(separator: "; ")
            + "; logs in \(logDirectory). CPU: the measuring thread's; wall: the monotonic clock's.")
        print(heading(columns))
        print("value through PassthroughSubject → map → filter → map → sink, ns/value")
        row("  untraced", columns) { $0.untraced }
        row("  reference: 32-byte store + rdtsc, 4 hops", columns) { $0.reference }
        row("  hook floor: a handler that counts", columns) { $0.hookFloor }
        row("  operator mode (.lifeline at 4 hops)", columns) { $0.operatorMode }
        row("    × the reference", columns, goal: "release ≤ 1.05×", decimals: 2) { ratio($0.operatorMode, $0.reference) }
        row("    added per event over untraced, ns", columns, goal: "debug ≤ 200 ns") {
            ($0.operatorMode - $0.untraced).divided(by: $0.operatorEventsPerValue)
        }
        amount("    wall ÷ CPU", columns, goal: "release ≤ 1.1×", decimals: 2) { $0.operatorMode.wall / $0.operatorMode.cpu }
        row("  automatic mode", columns) { $0.automaticMode }
        row("    added per event over the floor, ns", columns, goal: "release ≤ 25 ns") {
            ($0.automaticMode - $0.hookFloor).divided(by: $0.automaticEventsPerValue)
        }
        amount("    wall ÷ CPU", columns, goal: "release ≤ 1.1×", decimals: 2) { $0.automaticMode.wall / $0.automaticMode.cpu }
        print("subscribe + cancel of subject → map → filter → sink, µs/pipeline")
        row("  untraced", columns) { $0.subscribeUntraced.scaled(1e-3) }
        row("  operator mode (a .lifeline hop), added", columns, goal: "debug ≤ 20 µs") { ($0.subscribeOperator - $0.subscribeUntraced).scaled(1e-3) }
        row("  automatic mode, added", columns, goal: "debug ≤ 20 µs") { ($0.subscribeAutomatic - $0.subscribeUntraced).scaled(1e-3) }
        print("per-call snapshots: a subscribe or cancel with its snapshot among \(columns.map { "\($0.snapshotObjects)" }.joined(separator: "/")) live objects, µs")
        row("  p50", columns) { $0.snapshotMedian.scaled(1e-3) }
        row("  p99", columns, goal: "debug ≤ 1,000 µs") { $0.snapshot99th.scaled(1e-3) }
        row("  max", columns, goal: "debug ≤ 2,000 µs") { $0.snapshotLongest.scaled(1e-3) }
        print("Lifeline.stop() after recording the six realistic apps, \(columns.map { "\($0.stopCallSites)" }.joined(separator: "/")) call sites, ms")
        row("  stop", columns, goal: "≤ 50 ms") { $0.stop.scaled(1e-6) }
        print("log, binary records")
        amount("  bytes per declared object, after its type's", columns, goal: "≤ 64 B") { $0.bytesPerLaterObject }
        amount("  bytes per subscribe/cancel cycle, operator", columns, goal: "≤ 200 B") { $0.bytesPerOperatorCycle }
        amount("  bytes per subscribe/cancel cycle, automatic", columns, goal: "≤ 200 B") { $0.bytesPerAutomaticCycle }
        print("recorder's heap (malloc'd bytes in use), per subscribe/cancel cycle")
        amount("  operator mode, bytes a cycle", columns, goal: "≤ 8 B (8 MB/1M)") { Double($0.operatorHeap.bytes) / Double($0.operatorHeap.cycles) }
        amount("  automatic mode, bytes a cycle", columns, goal: "≤ 8 B (8 MB/1M)") { Double($0.automaticHeap.bytes) / Double($0.automaticHeap.cycles) }
        amount("  automatic, bytes once the 64 MiB log was full", columns, goal: "0") { $0.automaticHeap.bytesAfterFull.map(Double.init) }
    }

    /// Runs `binary` in a child process that measures its build's figures and prints them.
    private static func measure(binary: String, values: Int, cycles: Int, logDirectory: String) throws -> Column {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: binary)
        child.arguments = [String(values), logDirectory]
        var environment = ProcessInfo.processInfo.environment
        environment["LIFELINE_BENCHMARK_ONLY"] = "figures"
        environment["LIFELINE_BENCHMARK_CYCLES"] = String(cycles)
        child.environment = environment
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        guard child.terminationStatus == 0, let line = data.split(separator: UInt8(ascii: "\n")).last else {
            throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: binary])
        }
        return try JSONDecoder().decode(Column.self, from: Data(line))
    }

    private static let labelWidth = 50
    private static let numberWidth = 11
    private static let goalWidth = 18

    private static func heading(_ columns: [Column]) -> String {
        "".padding(toLength: labelWidth, withPad: " ", startingAt: 0)
            + columns.map { pad("\($0.build) CPU") + pad("\($0.build) wall") }.joined()
            + "  goal"
    }

    private static func pad(_ text: String) -> String {
        String(repeating: " ", count: max(1, numberWidth - text.count)) + text
    }

    private static func number(_ value: Double?, decimals: Int) -> String {
        pad(value.map { String(format: "%.\(decimals)f", $0) } ?? "–")
    }

    /// A row of times: each build's CPU and wall figure.
    private static func row(_ label: String, _ columns: [Column], goal: String = "", decimals: Int = 1, _ figure: (Column) -> Elapsed?) {
        let cells = columns.map { column in
            let value = figure(column)
            return number(value?.cpu, decimals: decimals) + number(value?.wall, decimals: decimals)
        }
        print(label.padding(toLength: labelWidth, withPad: " ", startingAt: 0) + cells.joined() + (goal.isEmpty ? "" : "  " + goal))
    }

    /// A row of amounts that are not times: each build's figure, under its CPU heading.
    private static func amount(_ label: String, _ columns: [Column], goal: String, decimals: Int = 1, _ figure: (Column) -> Double?) {
        let cells = columns.map { number(figure($0), decimals: decimals) + pad("") }
        print(label.padding(toLength: labelWidth, withPad: " ", startingAt: 0) + cells.joined() + "  " + goal)
    }

    /// `lhs` as a multiple of `rhs`, CPU and wall each.
    private static func ratio(_ lhs: Elapsed, _ rhs: Elapsed) -> Elapsed {
        Elapsed(cpu: lhs.cpu / rhs.cpu, wall: lhs.wall / rhs.wall)
    }
}
