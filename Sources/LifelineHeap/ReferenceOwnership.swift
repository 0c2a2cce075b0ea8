/// How a stored reference holds its target.
package enum ReferenceOwnership: String, Hashable, Sendable, CaseIterable {
    /// Keeps the target alive.
    case strong
    /// `weak`.
    case weak
    /// `unowned` (safe).
    case unowned
    /// `unowned(unsafe)`.
    case unownedUnsafe

    /// The ownership of a reference reached through a reference of this ownership: a weak
    /// closure capture inside a strongly held closure is weak.
    func through(_ inner: ReferenceOwnership) -> ReferenceOwnership {
        self == .strong ? inner : self
    }
}
