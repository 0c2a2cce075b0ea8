import ArgumentParser

/// The `lifeline` command: records Combine pipelines' handshakes and explains them.
@main
struct LifelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lifeline",
        abstract: "See what really happens inside Combine pipelines.",
        version: LifelineVersion.description,
        subcommands: [
            SamplesCommand.self, TimelineCommand.self, DiagnoseCommand.self, RenderCommand.self, GraphCommand.self,
            WhyCommand.self, SnapshotsCommand.self, PipelinesCommand.self, ExportCommand.self, DiffCommand.self,
        ]
    )
}
