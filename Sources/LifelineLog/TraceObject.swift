/// The declaration of one object the recorder has seen.
///
/// An object is declared once, the first time it appears, and events refer to it by ``id``.
public struct TraceObject: Hashable, Sendable {
    /// The Lifeline-assigned id.
    public let id: TraceObjectID
    /// The role it was first seen in.
    public let role: TraceObjectRole
    /// The fully qualified type name, as the runtime prints it.
    public let typeName: String
    /// The type name shortened for people: module prefixes and generic arguments removed.
    public let shortTypeName: String
    /// The label given to `.lifeline(_:)`, if the object belongs to a labelled hop.
    public let label: String?
    /// Where the object's pipeline was made in the program: where its `.lifeline(_:)` hop
    /// was written, or else where the top-level `subscribe` that made it was called from
    /// (resolved from ``callSite``). `nil` when unknown.
    public let sourceLocation: TraceSourceLocation?
    /// The call site of the top-level `subscribe` that made the object, as the log numbers it.
    public let callSite: UInt64?
    /// Whether Lifeline can see when the object dies. Value types (structs and enums) have no
    /// lifetime of their own, so no deallocation is ever recorded for them.
    public let lifetimeTracked: Bool
    /// Whether the recorder first saw the object in the middle of its subscription, with no
    /// subscribe call or `receive(subscription:)` before: a subscriber that first appears
    /// receiving a value or a completion, or a subscription that first appears asked for
    /// demand or cancelled. It was subscribed before recording started, so the log lacks
    /// its handshake.
    public let joinedMidStream: Bool

    /// Creates a declaration.
    public init(
        id: TraceObjectID, role: TraceObjectRole, typeName: String, shortTypeName: String,
        label: String? = nil, sourceLocation: TraceSourceLocation? = nil, callSite: UInt64? = nil,
        lifetimeTracked: Bool, joinedMidStream: Bool = false
    ) {
        self.id = id
        self.role = role
        self.typeName = typeName
        self.shortTypeName = shortTypeName
        self.label = label
        self.sourceLocation = sourceLocation
        self.callSite = callSite
        self.lifetimeTracked = lifetimeTracked
        self.joinedMidStream = joinedMidStream
    }

    /// The type name of an object whose declaration the log lost: events name it, no line
    /// says what it is (``TraceDamage/undeclaredObject(_:events:snapshots:)``).
    public static let unknownTypeName = "unknown"

    /// The object the reader puts in place of a lost declaration: of unknown type, in the role
    /// it was first named in, its lifetime not known to be tracked (so that nothing is concluded
    /// from a missing deallocation).
    static func placeholder(id: TraceObjectID, role: TraceObjectRole) -> TraceObject {
        TraceObject(id: id, role: role, typeName: unknownTypeName, shortTypeName: unknownTypeName, lifetimeTracked: false)
    }

    /// The short type name with the label, for diagrams and timelines: `Sink "ui" #7`.
    public var displayName: String {
        if let label { return "\(shortTypeName) \"\(label)\" \(id)" }
        return "\(shortTypeName) \(id)"
    }

    /// Where the object's pipeline was made, short enough for pictures: `SearchViewModel.swift:24`,
    /// or the function when the file is unknown; `nil` when neither is known.
    public var placeName: String? {
        sourceLocation.flatMap { $0.fileAndLine ?? $0.shortFunction }
    }

    /// Where the object's pipeline was made, as a finding says it: `subscribed in
    /// SearchViewModel.init at SearchViewModel.swift:24`, or `at Search.swift:42` for a
    /// `.lifeline` hop's object (the place the hop was written).
    public var originPhrase: String? {
        guard let sourceLocation else { return nil }
        guard sourceLocation.function != nil else {
            return label != nil ? "at \(sourceLocation)" : "subscribed at \(sourceLocation)"
        }
        return "subscribed in \(sourceLocation)"
    }

    /// The display name with the short place, for one-line outputs: `Sink #16
    /// (SearchViewModel.swift:24)`.
    public var placedName: String {
        placeName.map { "\(displayName) (\($0))" } ?? displayName
    }

    /// The same declaration with the type, role and lifetime tracking of `type`, and its hop
    /// unless the declaration has one: an object line that named its type by number, resolved.
    func typed(_ type: TraceObjectType) -> TraceObject {
        let hop = label != nil || sourceLocation != nil
        return TraceObject(
            id: id, role: type.role, typeName: type.typeName, shortTypeName: type.shortTypeName, label: hop ? label : type.label,
            sourceLocation: hop ? sourceLocation : type.sourceLocation, callSite: callSite, lifetimeTracked: type.lifetimeTracked,
            joinedMidStream: joinedMidStream
        )
    }

    /// The same declaration with its source location resolved from its call site.
    public func resolvingSourceLocation(_ location: TraceSourceLocation?) -> TraceObject {
        TraceObject(
            id: id, role: role, typeName: typeName, shortTypeName: shortTypeName, label: label,
            sourceLocation: sourceLocation ?? location, callSite: callSite, lifetimeTracked: lifetimeTracked,
            joinedMidStream: joinedMidStream
        )
    }
}
