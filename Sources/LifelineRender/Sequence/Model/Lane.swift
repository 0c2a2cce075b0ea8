import LifelineLog

/// One participant of a sequence diagram: an object of the trace, drawn as a vertical
/// lifeline, or the operators of one pipeline folded into one lifeline.
struct Lane: Hashable, Sendable {
    /// The lane's position, counted from the left (upstream) side.
    let index: Int
    /// The object the lane stands for; for a group, its first member.
    let object: TraceObject
    /// The objects folded into this lane by `--collapse operators`, upstream first; empty for
    /// a lane of one object.
    var members: [TraceObject] = []
    /// The pipeline whose operators a group lane holds, as `P2`; `nil` for a lane of one
    /// object or of objects of one type that came one after another.
    var pipeline: String?

    /// Whether the lane holds a pipeline's folded operators.
    var isGroup: Bool { pipeline != nil }
    /// Whether the lane holds several objects that are not operators: sources of one type
    /// that lived one after another, and the subscriptions they handed out.
    var isSuccession: Bool { pipeline == nil && members.count > 1 }

    /// The first heading line: the short type name, or `operators` for a group (a picture of
    /// some pipelines numbers them afresh, so the group is named by what it holds).
    var typeLine: String {
        isGroup ? "operators" : object.shortTypeName
    }

    /// The second heading line: where the program made the pipeline (`Search.swift:24`), the
    /// user's label (quoted) and the object id, a long file name shortened in its middle so that
    /// the line number and the id still fit; for a group, the operators' types in order.
    var identityLine: String {
        if isGroup {
            let publishers = members.filter { $0.role == .publisher }
            return (publishers.isEmpty ? members : publishers).map(\.shortTypeName).joined(separator: " → ")
        }
        if isSuccession {
            // A source's subscriptions are named by their own type's last part: `#1, Conduit #5`.
            let names = members.map { member in
                member.shortTypeName == object.shortTypeName
                    ? member.id.description : "\(member.shortTypeName.split(separator: ".").last ?? "") \(member.id)"
            }
            return members.count <= 3 ? names.joined(separator: ", ")
                : "\(members[0].id) … \(members[members.count - 1].id) (\(members.count))"
        }
        let place = object.placeName.map { place in
            place.count <= Self.placeLimit ? place : place.prefix(Self.placeLimit / 2) + "…" + place.suffix(Self.placeLimit / 2 - 1)
        }
        return [place, object.label.map { "\"\($0)\"" }, object.id.description].compactMap { $0 }.joined(separator: " ")
    }

    /// The most characters of the place a heading shows.
    private static let placeLimit = 24

    /// Both heading lines on one line, for formats that show participants in one line.
    var oneLineName: String { isGroup ? "\(typeLine): \(identityLine)" : "\(typeLine) \(identityLine)" }

    /// The lane's lifeline ends at a death only for a lane of one object.
    var endsAtDeath: Bool { members.count <= 1 && !isGroup }

    /// What a tooltip says of the lane: every member's full type and id.
    var details: String {
        guard isGroup || isSuccession else {
            var details = [object.typeName, identityLine]
            if let origin = object.originPhrase { details.append(origin) }
            return details.joined(separator: " ")
        }
        return "operators of \(pipeline ?? "a pipeline"): " + members.map { "\($0.shortTypeName) \($0.id)" }.joined(separator: ", ")
    }
}
