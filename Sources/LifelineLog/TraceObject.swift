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
    /// Where the labelled hop was written, as `File.swift:42`.
    public let sourceLocation: String?
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
        label: String? = nil, sourceLocation: String? = nil, lifetimeTracked: Bool, joinedMidStream: Bool = false
    ) {
        self.id = id
        self.role = role
        self.typeName = typeName
        self.shortTypeName = shortTypeName
        self.label = label
        self.sourceLocation = sourceLocation
        self.lifetimeTracked = lifetimeTracked
        self.joinedMidStream = joinedMidStream
    }

    /// The short type name with the label, for diagrams and timelines: `Sink "ui" #7`.
    public var displayName: String {
        if let label { return "\(shortTypeName) \"\(label)\" \(id)" }
        return "\(shortTypeName) \(id)"
    }
}
