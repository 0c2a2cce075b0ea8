/// How a stored reference holds the object it points to, which decides how its edge looks.
public enum OwnershipReference: String, Hashable, Sendable, CaseIterable {
    /// A strong reference, which keeps the object alive: a solid line.
    case strong
    /// A `weak` reference: a dashed line.
    case weak
    /// An `unowned` reference: a dotted line.
    case unowned
    /// An `unowned(unsafe)` reference: a bold dotted line.
    case unownedUnsafe
}
