/// One chat message, as the server and the screens see it.
struct Message: Equatable, CustomStringConvertible {
    let id: Int
    let conversation: String
    let text: String

    var description: String { "\(conversation)#\(id) \(text)" }
}

/// Whether the server answers the heartbeat, as the status bar shows it.
enum ConnectionStatus: Equatable {
    case connecting
    case online(latency: Int)
}
