/// What the server said of the user name being typed.
enum Availability: Equatable {
    /// Nothing asked yet, or the name is too short to ask about.
    case unknown
    case available
    case taken
}
