/// The stored properties of a class, its superclasses' included, as the runtime lays them out.
/// A class, so that the walk hands it around for one reference count each time.
final class ClassLayout {
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
    /// The fields whose values can hold a reference: ``fields`` without the plain-data ones
    /// (integers, floating point, enums without payloads), which the walk need not read.
    let referenceFields: [Field]
    /// Whether the class belongs to a system library (``SystemLibrary``).
    let isSystemLibrary: Bool
    /// The collection type whose storage instances of the class are (the standard library's
    /// array, set and dictionary storage classes), or `nil`.
    let collectionType: Any.Type?
    /// The strong references the object holds to itself, which the runtime counts and the
    /// graph leaves out of its counts: a running task's one.
    let selfReferences: Int

    init(
        type: Any.Type, typeName: String, instanceSize: Int, fields: [Field], referenceFields: [Field], isSystemLibrary: Bool,
        collectionType: Any.Type?, selfReferences: Int = 0
    ) {
        self.type = type
        self.typeName = typeName
        self.instanceSize = instanceSize
        self.fields = fields
        self.referenceFields = referenceFields
        self.isSystemLibrary = isSystemLibrary
        self.collectionType = collectionType
        self.selfReferences = selfReferences
    }
}
