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
    /// user's label (quoted) and the object id. A long file name is shortened in its middle, so
    /// that the line number and the id still fit a lane's heading.
    var identityLine: String {
        let place = object.placeName.map { place in
            place.count <= Self.placeLimit ? place : place.prefix(Self.placeLimit / 2) + "…" + place.suffix(Self.placeLimit / 2 - 1)
        }
        return [place, object.label.map { "\"\($0)\"" }, object.id.description].compactMap { $0 }.joined(separator: " ")
    }

    /// The most characters of the place a heading shows.
    private static let placeLimit = 24

    /// Both heading lines on one line, for formats that show participants in one line.
    var oneLineName: String { "\(typeLine) \(identityLine)" }
}
