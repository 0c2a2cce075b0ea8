/// One sample story that `lifeline samples` runs in-process, under recording.
public struct SampleScenario: Sendable {
    /// The story's folder name under samples/, and its output folder name.
    public let name: String
    /// A one-line title for the gallery.
    public let title: String
    /// What the story shows, in a few sentences.
    public let summary: String
    /// Runs the story to its end, including any asynchronous work it starts, and returns.
    public let run: @Sendable () -> Void

    /// Creates a scenario.
    public init(name: String, title: String, summary: String, run: @escaping @Sendable () -> Void) {
        self.name = name
        self.title = title
        self.summary = summary
        self.run = run
    }
}
