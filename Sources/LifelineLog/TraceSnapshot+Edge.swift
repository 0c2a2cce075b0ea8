extension TraceSnapshot {
    /// One stored reference from one object to another.
    public struct Edge: Hashable, Sendable {
        /// The object that holds the reference.
        public let from: TraceObjectID
        /// The object referred to.
        public let to: TraceObjectID
        /// Where the reference is stored, from `from`: a field name (`cancellables`), a path
        /// through values stored inline (`state.subscription`), an element (`[2]`), or a
        /// closure capture (`receiveValue (closure)`).
        public let field: String
        /// How the reference holds its target.
        public let ownership: Ownership
        /// For a reference a closure holds (`receiveValue (closure)`), the call site
        /// (``Trace/callSites``) of the innermost closure that captured the target: its code's
        /// place in the program, `SearchModel.swift:17`. `nil` for other references, or when
        /// call sites were not recorded.
        public let closureSite: UInt64?

        /// Creates an edge.
        public init(from: TraceObjectID, to: TraceObjectID, field: String, ownership: Ownership, closureSite: UInt64? = nil) {
            self.from = from
            self.to = to
            self.field = field
            self.ownership = ownership
            self.closureSite = closureSite
        }

        /// Where the closure that holds the reference is written (``closureSite`` resolved
        /// through `trace`'s call sites): `closure #1 in SearchModel.bind() at
        /// SearchModel.swift:17`. `nil` when the reference is no closure's or the place is unknown.
        public func closurePlace(in trace: Trace) -> TraceSourceLocation? {
            closureSite.flatMap { trace.callSites[$0]?.location }
        }

        /// Reads an edge of a snapshot line: `{"from":3,"to":4,"field":"f","ownership":"strong"}`,
        /// and `"closure"`, the closure's call site, when the reference is a closure's.
        static func read(_ fields: LineFields) throws(TraceReadError) -> Edge {
            Edge(
                from: try fields.id("from"), to: try fields.id("to"), field: try fields.string("field"),
                ownership: try fields.choice("ownership", of: Ownership.self),
                closureSite: fields.has("closure") ? try fields.unsigned("closure") : nil
            )
        }
    }

    /// The ownership of a stored reference.
    public enum Ownership: String, Hashable, Sendable, CaseIterable {
        /// Keeps the target alive.
        case strong
        /// `weak`: becomes `nil` when the target dies.
        case weak
        /// `unowned`: does not keep the target alive; traps if used after it died.
        case unowned
        /// `unowned(unsafe)`: a bare pointer.
        case unownedUnsafe = "unowned_unsafe"

        /// Whether the reference keeps its target alive.
        public var isStrong: Bool { self == .strong }
    }
}
