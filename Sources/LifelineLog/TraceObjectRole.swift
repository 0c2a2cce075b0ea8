/// The part an object plays in a Combine handshake.
public enum TraceObjectRole: String, Hashable, Sendable, CaseIterable {
    /// Something that `subscribe(_:)` was called on.
    case publisher
    /// The object a publisher hands to `receive(subscription:)`.
    case subscription
    /// Something that was subscribed to a publisher.
    case subscriber
    /// An object with no Combine role that heap inspection reached: a user's object, a closure
    /// context, a collection's storage. Declared by a ``TraceSnapshot``.
    case object
}
