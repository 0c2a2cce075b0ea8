import LifelineLog

/// One participant of a sequence diagram: an object of the trace, drawn as a vertical
/// lifeline.
struct Lane: Hashable, Sendable {
    /// The lane's position, counted from the left (upstream) side.
    let index: Int
    /// The object the lane stands for.
    let object: TraceObject

    /// The first heading line: the short type name.
    var typeLine: String { object.shortTypeName }

    /// The second heading line: where the program made the pipeline (`Search.swift:24`), the
    /// user's label (quoted) and the object id.
    var identityLine: String {
        [object.placeName, object.label.map { "\"\($0)\"" }, object.id.description].compactMap { $0 }.joined(separator: " ")
    }

    /// Both heading lines on one line, for formats that show participants in one line.
    var oneLineName: String { "\(typeLine) \(identityLine)" }
}
