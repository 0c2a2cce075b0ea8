import LifelineLog

/// One recorded call: the `begin` event, the matching `end` event when the call returned, and
/// where it ran inside other calls on the same thread.
public struct TraceCall: Hashable, Sendable {
    /// The sequence number of the call's `begin` event.
    public let begin: UInt64
    /// The sequence number of the call's `end` event, or `nil` when the log has none (the call
    /// never returned before recording stopped, or the log is damaged).
    public let end: UInt64?
    /// The kernel thread id the call ran on.
    public let thread: UInt64
    /// The `begin` sequence number of the innermost call that was running on the same thread
    /// when this one began, or `nil` when this call was made from outside any recorded call.
    public let parent: UInt64?
    /// How many recorded calls were running on the thread when this one began: 0 for a call
    /// made from outside any recorded call (user code, a scheduler's work item).
    public let depth: Int

    /// Whether the call was running at the moment of event `seq`: it began before and had
    /// not yet returned.
    public func isOpen(at seq: UInt64) -> Bool {
        begin < seq && (end.map { seq < $0 } ?? true)
    }
}
