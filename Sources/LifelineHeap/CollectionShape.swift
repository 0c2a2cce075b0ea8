/// The standard collections whose storage the inspector walks, with their element types.
enum CollectionShape {
    case array(element: Any.Type)
    case set(element: Any.Type)
    case dictionary(key: Any.Type, value: Any.Type)

    /// The shape of a collection type, or `nil` for any other type.
    init?(_ type: Any.Type) {
        guard let collection = type as? any InspectableCollection.Type else { return nil }
        self = collection.shape
    }
}

/// A standard collection whose storage layout the inspector knows.
protocol InspectableCollection {
    static var shape: CollectionShape { get }
}

extension Array: InspectableCollection {
    static var shape: CollectionShape { .array(element: Element.self) }
}

extension ContiguousArray: InspectableCollection {
    static var shape: CollectionShape { .array(element: Element.self) }
}

extension Set: InspectableCollection {
    static var shape: CollectionShape { .set(element: Element.self) }
}

extension Dictionary: InspectableCollection {
    static var shape: CollectionShape { .dictionary(key: Key.self, value: Value.self) }
}
