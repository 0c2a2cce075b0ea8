/// The declaration of one kernel thread that recorded events.
public struct TraceThread: Hashable, Sendable {
    /// The kernel thread id (`gettid`).
    public let tid: UInt64
    /// `main` for the process's main thread, otherwise the thread's own name, or `thread <tid>`.
    public let name: String

    /// Creates a declaration.
    public init(tid: UInt64, name: String) {
        self.tid = tid
        self.name = name
    }
}

/// The declaration of one dispatch queue that events ran on.
public struct TraceQueue: Hashable, Sendable {
    /// A trace-local queue number; events carry it.
    public let id: UInt32
    /// The queue's label.
    public let label: String

    /// Creates a declaration.
    public init(id: UInt32, label: String) {
        self.id = id
        self.label = label
    }
}
