/// What a stage of a pipeline still open when its log ended without its end record waits on,
/// as a sequence diagram writes it at the bottom of the stage's lane: `waits on First.Inner #3
/// (Search.swift:12)`, `never asked for a value`. The SVG draws an open bar from the lane's
/// last event down to it. The words are ``WaitsOnRule``'s chain, in a few words
/// (`PipelineWait`).
struct WaitNote: Hashable, Sendable {
    /// The stage's lane.
    let lane: Int
    /// What the stage waits on, or why it cannot move.
    let text: String
    /// Whether the chain ends at this stage.
    let endsChain: Bool

    /// The note as the text formats (Mermaid, PlantUML) write it over the lane, after the
    /// lane's last row: `⋯ waits on First.Inner #3 (Search.swift:12)`.
    var caption: String { "⋯ " + text }
}
