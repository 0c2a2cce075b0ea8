/// The stored properties of a class, its superclasses' included, as the runtime lays them out.
struct ClassLayout {
    /// One stored property.
    struct Field {
        let name: String
        /// Offset from the start of the object.
        let offset: Int
        let type: Any.Type
        /// The declared ownership: `weak`, `unowned` and `unowned(unsafe)` come from the field
        /// descriptor's mangled type name.
        let ownership: ReferenceOwnership
    }

    let type: Any.Type
    /// The fully qualified type name.
    let typeName: String
    /// The instance size the metadata declares.
    let instanceSize: Int
    let fields: [Field]
    /// The collection type whose storage instances of the class are (the standard library's
    /// array, set and dictionary storage classes), or `nil`.
    let collectionType: Any.Type?
}
