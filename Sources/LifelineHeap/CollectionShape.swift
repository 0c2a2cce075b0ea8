/// The standard collections whose storage the inspector walks, with their element types.
enum CollectionShape {
    case array(element: Any.Type)
    case set(element: Any.Type)
    case dictionary(key: Any.Type, value: Any.Type)

    /// Where the storage object keeps the element count.
    var countOffset: Int {
        switch self {
        case .array: return RuntimeLayout.arrayCountOffset
        case .set, .dictionary: return RuntimeLayout.hashedCountOffset
        }
    }

    /// The shape of a collection type, or `nil` for any other type.
    init?(_ type: Any.Type) {
        guard let collection = type as? any InspectableCollection.Type else { return nil }
        self = collection.shape
    }

    /// The collection type whose storage is an instance of the standard library's generic
    /// storage class `typeName` (fully qualified) with the generic arguments `arguments`:
    /// `Array<Element>` for `_ContiguousArrayStorage<Element>`, `Set` for `_SetStorage` and
    /// `Dictionary` for `_DictionaryStorage`. `nil` for any other class. Storage reached as an
    /// object (a closure that captures only an array holds its storage as its context) is
    /// walked as the collection.
    static func collectionType(ofStorage typeName: String, arguments: [Any.Type]) -> Any.Type? {
        func array<Element>(_: Element.Type) -> Any.Type { [Element].self }
        func set<Element: Hashable>(_: Element.Type) -> Any.Type { Set<Element>.self }
        func dictionary<Key: Hashable, Value>(_: Key.Type, _: Value.Type) -> Any.Type { [Key: Value].self }
        let storage = typeName.prefix { $0 != "<" }
        if storage == "Swift._ContiguousArrayStorage", arguments.count == 1 { return array(arguments[0]) }
        guard let key = arguments.first as? any Hashable.Type else { return nil }
        if storage == "Swift._SetStorage", arguments.count == 1 { return set(key) }
        if storage == "Swift._DictionaryStorage", arguments.count == 2 { return dictionary(key, arguments[1]) }
        return nil
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
