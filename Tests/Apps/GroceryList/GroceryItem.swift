/// One line of the shopping list.
public struct GroceryItem: Hashable, Sendable {
    public var name: String
    public var quantity: Int
    public var checked: Bool

    public init(name: String, quantity: Int = 1, checked: Bool = false) {
        self.name = name
        self.quantity = quantity
        self.checked = checked
    }
}

/// Where the list stands with the server.
enum SyncState: Equatable, Sendable {
    case idle
    case syncing
    case synced(revision: Int)
    case failed(String)
}

/// A price cut the server announces.
struct Deal: Equatable, Sendable {
    var name: String
    var percentOff: Int
}
