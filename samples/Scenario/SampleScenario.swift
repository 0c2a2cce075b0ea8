/// One sample story that `lifeline samples` runs in-process, under recording.
public struct SampleScenario: Sendable {
    /// The story's folder name under samples/, and its output folder name.
    public let name: String
    /// A one-line title for the gallery.
    public let title: String
    /// What the story shows, in a few sentences, including why a correct analysis finds
    /// ``expectedDiagnoses``.
    public let summary: String
    /// The diagnosis codes a correct analysis of the story's recording produces, such as
    /// `subscriber-deallocated-early`; empty for a story whose pipelines are all correct.
    public let expectedDiagnoses: [String]
    /// Runs the story to its end, including any asynchronous work it starts, printing to the
    /// console it is given, and returns.
    ///
    /// A run makes the same Combine calls in the same order, and prints the same lines, every
    /// time: work on other threads is ordered by holding queues and waiting for them.
    public let run: @Sendable (SampleConsole) -> Void

    /// Creates a scenario.
    ///
    /// - Parameters:
    ///   - name: The story's folder name under samples/.
    ///   - title: A one-line title.
    ///   - summary: What the story shows and what a correct analysis finds.
    ///   - expectedDiagnoses: The diagnosis codes a correct analysis produces.
    ///   - run: Runs the story to its end, printing to the console it is given.
    public init(
        name: String, title: String, summary: String, expectedDiagnoses: [String],
        run: @escaping @Sendable (SampleConsole) -> Void
    ) {
        self.name = name
        self.title = title
        self.summary = summary
        self.expectedDiagnoses = expectedDiagnoses
        self.run = run
    }

    /// Every sample story, in the order of the gallery.
    public static let all: [SampleScenario] = [
        .forgottenSubscription,
        .storedSubscription,
        .returnedCancellable,
        .sinkAndAssign,
        .additiveDemand,
        .schedulers,
        .droppedCancellable,
        .retainCycle,
    ]

    /// Runs the story, printing each line to standard output as it is printed: what a
    /// sample's `main.swift` does.
    public func runPrintingToStandardOutput() {
        run(SampleConsole(echo: { line in Swift.print(line) }))
    }
}
