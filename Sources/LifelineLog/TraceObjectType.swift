/// What a `type` line declares (log format version 8 on): the type and role that the objects
/// declared with its number share, and the `.lifeline` hop that declared them, if one did,
/// written once however many objects of the type the log declares.
///
/// An object line then names the type by ``id`` (`"type":3`) in place of writing out `type`,
/// `short`, `role`, `lifetime`, `label`, `source` and `function`; an object of the same type met
/// in another role, with its lifetime tracked where another's was not, or at another hop, has a
/// type line of its own.
package struct TraceObjectType: Hashable, Sendable {
    /// The type's number, unique in the log, from 1.
    package let id: UInt64
    /// The fully qualified type name, as ``TraceObject/typeName``.
    package let typeName: String
    /// The short type name, as ``TraceObject/shortTypeName``.
    package let shortTypeName: String
    /// The role its objects were first seen in.
    package let role: TraceObjectRole
    /// Whether Lifeline tracks its objects' lifetimes.
    package let lifetimeTracked: Bool
    /// The label of the `.lifeline` hop that declared its objects, as ``TraceObject/label``.
    package let label: String?
    /// Where that hop was written, as ``TraceObject/sourceLocation``.
    package let sourceLocation: TraceSourceLocation?

    package init(
        id: UInt64, typeName: String, shortTypeName: String, role: TraceObjectRole, lifetimeTracked: Bool,
        label: String? = nil, sourceLocation: TraceSourceLocation? = nil
    ) {
        self.id = id
        self.typeName = typeName
        self.shortTypeName = shortTypeName
        self.role = role
        self.lifetimeTracked = lifetimeTracked
        self.label = label
        self.sourceLocation = sourceLocation
    }

    /// What an object line that names its type by number holds until the type line is found.
    static let unresolved = TraceObjectType(id: 0, typeName: "", shortTypeName: "", role: .object, lifetimeTracked: false)

    /// The type, role and hop of `object`, numbered `id`.
    package init(of object: TraceObject, id: UInt64) {
        self.init(
            id: id, typeName: object.typeName, shortTypeName: object.shortTypeName, role: object.role,
            lifetimeTracked: object.lifetimeTracked, label: object.label, sourceLocation: object.sourceLocation
        )
    }

    /// Whether the type line says where its objects were declared: then their lines do not.
    var namesHop: Bool {
        label != nil || sourceLocation != nil
    }
}
