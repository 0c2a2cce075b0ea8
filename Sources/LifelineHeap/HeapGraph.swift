/// The reference graph heap inspection found: objects by address, and the references
/// between them.
///
/// Addresses are only meaningful while inspection runs (an address is reused as soon as its
/// object dies); the recorder turns them into trace ids at once.
package struct HeapGraph: Sendable {
    /// One object inspection reached.
    package struct Node: Hashable, Sendable {
        package let address: UInt
        /// The fully qualified runtime type name. For a collection's storage, the collection's
        /// type (`Swift.Set<OpenCombine.AnyCancellable>`).
        package let typeName: String
        /// Whether the node is the storage of an array, set or dictionary.
        package let isCollection: Bool
        /// Whether the object belongs to a system library (``SystemLibrary``): its internals
        /// were walked but not drawn, so its references are to the program's objects it holds
        /// through them.
        package let isOpaque: Bool
        /// The counts read from the object's reference count word (and side table), or `nil`
        /// when they could not be read.
        package var counts: Counts?
    }

    /// Reference counts, the numbers `_getRetainCount`, `_getWeakRetainCount` and
    /// `_getUnownedRetainCount` give, read without adding a reference.
    package struct Counts: Hashable, Sendable {
        package let strong: Int
        package let weak: Int
        package let unowned: Int
    }

    /// One stored reference.
    package struct Reference: Hashable, Sendable {
        package let from: UInt
        package let to: UInt
        /// The field path from `from`: `cancellables`, `status.subscribed`, `[2]`,
        /// `receiveValue (closure)`.
        package let path: String
        package let ownership: ReferenceOwnership

        /// Hashes the ends and the ownership, not the path: two references between the same
        /// objects are rare, and hashing every path string was a tenth of a walk.
        package func hash(into hasher: inout Hasher) {
            hasher.combine(from)
            hasher.combine(to)
            hasher.combine(ownership)
        }
    }

    package var nodes: [UInt: Node] = [:]
    /// The objects whose fields (or, for a collection, elements) this inspection read: all of
    /// them, except those it was told an earlier inspection read
    /// (``HeapInspector/inspect(roots:known:excluding:)``), which it only validated and
    /// counted. Their references are the ones in ``references``.
    package var read = Set<UInt>()
    /// For each object in ``read``, the memory its references were read from: the object,
    /// a collection's storage, the closure contexts and boxes it holds.
    package var regions: [UInt: [Range<UInt>]] = [:]
    /// A hash of the bytes in each object's ``regions``, reference counts left out: while it is
    /// the same, so are the object's references (``HeapInspector/recheck(_:)``).
    package var fingerprints: [UInt: UInt64] = [:]
    /// The references, in the order found, without repeats.
    package var references: [Reference] = []

    package init() {}

    /// The references that leave `address`.
    package func references(from address: UInt) -> [Reference] {
        references.filter { $0.from == address }
    }
}
