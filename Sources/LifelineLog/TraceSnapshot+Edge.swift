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

        /// Creates an edge.
        public init(from: TraceObjectID, to: TraceObjectID, field: String, ownership: Ownership) {
            self.from = from
            self.to = to
            self.field = field
            self.ownership = ownership
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
