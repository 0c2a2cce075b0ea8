import Lifeline
import LifelineAnalysis
import LifelineLog

extension LifecycleCheck {
    /// The mark that opens each run of a repeated scenario in the trace.
    public static let runBeginMark = "LifelineTesting: scenario run begins"
    /// The mark that closes it, followed by a snapshot.
    public static let runEndMark = "LifelineTesting: scenario run ends"

    /// Runs `body` `iterations` times under one recording and finds what grows with the runs:
    /// the engine of `expectNoLifecycleGrowth` (Swift Testing) and `XCTAssertNoLifecycleGrowth`
    /// (XCTest).
    ///
    /// Each run is marked, its queues drained, and followed by a complete ownership snapshot.
    /// Then ``LifecycleGrowthRule`` alone runs: the pipelines one place makes, or the objects of
    /// a type, that each of the last three runs or more left more of than the run before, after
    /// the warm-up, grow. What grew is grouped by what holds what, one `lifecycle-growth`
    /// finding per group, which names the place (or the type), the run where the growth began,
    /// each thing's count after every run, and what held the first object left since then.
    /// Other problems are not reported: ``run(_:)`` finds them in one run.
    ///
    /// ```swift
    /// let findings = try LifecycleCheck().run(iterations: 10) {
    ///     let screen = QuoteScreen(service: service)
    ///     screen.open()
    ///     screen.close()
    /// }
    /// #expect(findings.problems.isEmpty, "\(findings.failureMessage)")
    /// ```
    ///
    /// Every run is run: growth is judged on all of them, so a count that levels off before the
    /// last (a cache filled once) is not growth.
    ///
    /// - Parameters:
    ///   - iterations: How many times to run `body`: at least `warmUp` + 3 (4 without a warm-up).
    ///   - warmUp: How many of the first runs may leave things behind without growing (filling a
    ///     cache, starting a service); one by default.
    ///   - body: One run of the scenario. It should return once the work it starts is done,
    ///     apart from work left on ``drainedQueues``, and keep nothing it made.
    /// - Returns: The trace of every run and the growth found in it; ``LifecycleFindings/scope``
    ///   spans the runs.
    /// - Throws: What `body` throws; ``LifecycleCheckError/tooFewIterations(_:warmUp:)``; a
    ///   `LifelineError` when a recording is already running; a `TraceReadError` when the log
    ///   can't be read back; or ``LifecycleCheckError`` when the log lost the runs' marks.
    public func run(iterations: Int, warmUp: Int = 1, _ body: () throws -> Void) throws -> LifecycleFindings {
        guard warmUp >= 0, iterations >= max(warmUp, 1) + LifecycleGrowthRule.growingRepetitions else {
            throw LifecycleCheckError.tooFewIterations(iterations, warmUp: warmUp)
        }
        let trace = try Lifeline.record(options: options) {
            for run in 1...iterations {
                Lifeline.mark(Self.runBeginMark)
                try body()
                for queue in drainedQueues {
                    queue.sync {}
                }
                Lifeline.mark(Self.runEndMark)
                Lifeline.snapshot("after run \(run)")
            }
        }
        let runs = ObservedScope.repetitions(in: trace, beginMark: Self.runBeginMark, endMark: Self.runEndMark)
        let rule = LifecycleGrowthRule(repetitions: runs, warmUp: warmUp)
        guard runs.count == iterations, rule.uncountedRepetitions(in: trace) == 0, let first = runs.first, let last = runs.last else {
            throw LifecycleCheckError.scopeNotRecorded(damage: trace.damage.map(\.description))
        }
        return LifecycleFindings(
            trace: trace, scope: ObservedScope(begin: first.begin, end: last.end),
            diagnoses: TraceAnalyzer(rules: [rule]).diagnose(trace)
        )
    }
}
