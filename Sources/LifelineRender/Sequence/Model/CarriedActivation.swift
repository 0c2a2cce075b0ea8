/// A call still running where a section of a picture begins: it was made in a section above,
/// so its activation is drawn from the top of this section's lane, continuing the one above,
/// until the row of its return (or the section's end).
struct CarriedActivation: Sendable {
    /// The callee's lane, in the section's numbering.
    let lane: Int
    /// The activation's nesting on its lane, as the call opened it.
    let depth: Int
    /// The thread or queue the call ran on, as a legend entry.
    let context: Int?
    /// The kernel thread the call ran on: its return closes this activation.
    let thread: UInt64?
    /// The call's event number (`@N` in the section above); `nil` for a call without one.
    let seq: UInt64?
    /// What the call was.
    let kind: CallKind

    /// What a picture says of it: `@123 subscribe`.
    var caption: String {
        (seq.map { "@\($0) " } ?? "") + kind.label(valueLimit: 24)
    }
}
