/// The walk through one system-library object's internals (``SystemLibrary``): the objects
/// of the library it reaches, each with the field path and ownership it was reached through,
/// breadth first so that each path is a shortest one.
struct LibraryInterior {
    /// One internal object still to scan.
    struct Item {
        let address: UInt
        let layout: ClassLayout
        /// The path from the owner, `""` for the owner itself.
        let path: String
        let ownership: ReferenceOwnership
    }

    /// The most internal objects one owner's walk visits.
    static let objectLimit = 1_000

    /// The node the internals belong to: references found in them leave from it.
    let owner: UInt
    private var visited: Set<UInt>
    private var queue: [Item]
    private var next = 0

    init(owner: UInt, layout: ClassLayout) {
        self.owner = owner
        visited = [owner]
        queue = [Item(address: owner, layout: layout, path: "", ownership: .strong)]
    }

    /// Queues an internal object, unless it was visited or the limit is reached.
    mutating func enqueue(_ item: Item) {
        guard visited.count < Self.objectLimit, visited.insert(item.address).inserted else { return }
        queue.append(item)
    }

    /// Marks a collection's storage, a closure context or a box visited; `false` when it
    /// already was.
    mutating func visit(container: UInt) -> Bool {
        visited.count < Self.objectLimit && visited.insert(container).inserted
    }

    mutating func dequeue() -> Item? {
        guard next < queue.count else { return nil }
        defer { next += 1 }
        return queue[next]
    }

    /// `path` continued by `component`: `_impl.delegate`, `observers[2]`.
    static func path(_ path: String, _ component: String) -> String {
        path.isEmpty || component.hasPrefix("[") ? path + component : "\(path).\(component)"
    }
}
