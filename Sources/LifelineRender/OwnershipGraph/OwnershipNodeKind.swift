/// What an object in an ownership graph is, which decides how its node looks.
public enum OwnershipNodeKind: String, Hashable, Sendable, CaseIterable {
    /// A publisher, such as a subject: a blue rounded box.
    case publisher
    /// A subscription: a green box.
    case subscription
    /// A subscriber, such as a sink: a purple ellipse.
    case subscriber
    /// An `AnyCancellable`: an orange hexagon.
    case cancellable
    /// An object the user registered, such as a view model: a yellow note.
    case userObject
}
