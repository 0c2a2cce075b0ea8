/// The reference graph heap inspection found: objects by address, and the references
/// between them.
///
/// Addresses are only meaningful while inspection runs (an address is reused as soon as its
/// object dies); the recorder turns them into trace ids at once.
package struct HeapGraph: Sendable {
    /// The type name of a Swift concurrency task's node (``HeapWalk/taskLayout(at:)``).
    package static let taskTypeName = "Swift.Task"

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

        /// The counts without `strong` references the object holds to itself.
        func leavingOut(strong own: Int) -> Counts {
            own == 0 ? self : Counts(strong: max(strong - own, 0), weak: weak, unowned: unowned)
        }
    }

    /// One stored reference.
    package struct Reference: Hashable, Sendable {
        package let from: UInt
        package let to: UInt
        /// The field path from `from`: `cancellables`, `status.subscribed`, `[2]`,
        /// `receiveValue (closure)`.
        package let path: String
        package let ownership: ReferenceOwnership
        /// For a reference held through a closure (its path has ` (closure)`), the address
        /// of the closure's function: the code of the innermost closure that captured it, for
        /// the recorder to symbolicate. 0 otherwise.
        package let closureFunction: UInt

        /// Hashes the ends and the ownership, not the path: two references between the same
        /// objects are rare, and hashing every path string was a tenth of a walk.
        package func hash(into hasher: inout Hasher) {
            hasher.combine(from)
            hasher.combine(to)
            hasher.combine(ownership)
        }
    }

    package var nodes: [UInt: Node] = [:]
    /// The references, in the order found, without repeats.
    package var references: [Reference] = []

    /// One object whose fields (or elements) this inspection read: where its regions lie in
    /// ``regionLinks``, and their fingerprint once the walk ends.
    struct ReadObject: Sendable {
        let address: UInt
        var firstRegion = -1
        var lastRegion = -1
        var fingerprint: UInt64?
    }

    /// The objects read, in the order they were read.
    private(set) var readObjects: [ReadObject] = []
    /// The position of each read object in ``readObjects``.
    private var readPositions = AddressTable<Int>()
    /// Every region noted, each with the position of the next region of the same object
    /// (`-1` after its last): one array for the whole walk, rather than one per object.
    private var regionLinks: [(range: Range<UInt>, next: Int)] = []

    package init() {}

    /// How many objects this inspection read the fields (or, for a collection, the elements)
    /// of: all of those in ``nodes``, except those it was told an earlier inspection read
    /// (``HeapInspector/inspect(roots:known:excluding:)``), which it only validated and
    /// counted. Their references are the ones in ``references``.
    package var readCount: Int { readObjects.count }

    /// Whether this inspection read the fields (or elements) of the object at `address`.
    package func wasRead(_ address: UInt) -> Bool {
        readPositions[address] != nil
    }

    /// The memory the references of the object at `address` were read from: the object, a
    /// collection's storage, the closure contexts and boxes it holds. Empty for an object not
    /// read.
    package func regions(of address: UInt) -> [Range<UInt>] {
        guard let position = readPositions[address] else { return [] }
        var regions: [Range<UInt>] = []
        var link = readObjects[position].firstRegion
        while link >= 0 {
            regions.append(regionLinks[link].range)
            link = regionLinks[link].next
        }
        return regions
    }

    /// A hash of the bytes in the object's ``regions(of:)``, reference counts left out: while
    /// it is the same, so are the object's references (``HeapInspector/recheck(_:)``). `nil`
    /// for an object not read, or whose memory could not be read again.
    package func fingerprint(of address: UInt) -> UInt64? {
        readPositions[address].flatMap { readObjects[$0].fingerprint }
    }

    /// The references that leave `address`.
    package func references(from address: UInt) -> [Reference] {
        references.filter { $0.from == address }
    }

    // MARK: Building

    /// Makes room for `objects` objects read and their regions.
    mutating func reserveReadObjects(_ objects: Int) {
        readObjects.reserveCapacity(objects)
        readPositions.reserveCapacity(objects)
        regionLinks.reserveCapacity(2 * objects)
    }

    /// Notes that the object at `address` is read; its position among the objects read, or
    /// `nil` when it was already.
    mutating func markRead(_ address: UInt) -> Int? {
        guard readPositions[address] == nil else { return nil }
        readPositions[address] = readObjects.count
        readObjects.append(ReadObject(address: address))
        return readObjects.count - 1
    }

    /// The position among the objects read of the object at `address`, if it was read.
    func readPosition(of address: UInt) -> Int? {
        readPositions[address]
    }

    /// Adds `range` to the regions of the object read at `position`.
    mutating func addRegion(_ range: Range<UInt>, toReadObjectAt position: Int) {
        let link = regionLinks.count
        regionLinks.append((range, -1))
        let last = readObjects[position].lastRegion
        if last >= 0 {
            regionLinks[last].next = link
        } else {
            readObjects[position].firstRegion = link
        }
        readObjects[position].lastRegion = link
    }

    /// Calls `body` with each region of the object read at `position`, in the order noted,
    /// until it returns `false`.
    func forEachRegion(ofReadObjectAt position: Int, _ body: (Range<UInt>) -> Bool) {
        var link = readObjects[position].firstRegion
        while link >= 0, body(regionLinks[link].range) {
            link = regionLinks[link].next
        }
    }

    /// Sets the fingerprint of the object read at `position`.
    mutating func setFingerprint(_ fingerprint: UInt64?, ofReadObjectAt position: Int) {
        readObjects[position].fingerprint = fingerprint
    }
}
