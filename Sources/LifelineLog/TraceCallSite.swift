/// A call the recorder captured the call stack of, resolved when recording stopped: where in
/// the program a top-level `subscribe` or a `cancel()` was called from.
///
/// Objects made by a subscribe refer to its site (``TraceObject/sourceLocation`` is resolved
/// from it); a cancel event refers to the site of its cancel, which also tells why it was
/// cancelled (``cancelCause``).
public struct TraceCallSite: Hashable, Sendable {
    /// The site's number, unique in the log.
    public let id: UInt64
    /// The program's own frame nearest the call, or `nil` when no frame of the program was
    /// found (the call came from a library, or the binary has no symbols).
    public let location: TraceSourceLocation?
    /// For the site of a cancel: who cancelled. `nil` for a subscribe's site.
    public let cancelCause: CancelCause?

    /// Creates a call site.
    public init(id: UInt64, location: TraceSourceLocation?, cancelCause: CancelCause? = nil) {
        self.id = id
        self.location = location
        self.cancelCause = cancelCause
    }

    /// Who cancelled, as timelines and findings say it: `its AnyCancellable was released in
    /// HomeScreenModel.watchBadgeWhileLoading at HomeScreenModel.swift:36`, `called in
    /// HomeScreenModel.peekSettings at HomeScreenModel.swift:42`; `nil` when unknown.
    public var cancelPhrase: String? {
        switch cancelCause {
        case .released?:
            return "its AnyCancellable was released" + (location.map { " in \($0)" } ?? "")
        case .called?:
            return location.map { "called in \($0)" }
        case .unknown?, nil:
            return nil
        }
    }

    /// Why a subscription was cancelled, as its cancel's call stack shows.
    public enum CancelCause: String, Hashable, Sendable, CaseIterable {
        /// An `AnyCancellable` was deinitialized: the program let go of its token (a local
        /// that went out of scope, a set that died, a property that was replaced or cleared).
        case released
        /// The program's own code called `cancel()`.
        case called
        /// Neither could be seen: an operator cancelled its upstream, or the stack had no
        /// frame of the program.
        case unknown
    }
}
