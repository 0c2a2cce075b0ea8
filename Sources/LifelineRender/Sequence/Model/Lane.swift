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
    /// The name of the pipeline whose operators a group lane holds (`Search.swift:24`);
    /// `nil` for a lane of one object or of objects of one type that came one after another.
    var pipeline: String?
    /// A group's operators as the code chains them, upstream first: the short type names of
    /// its publishers by their distance from the pipeline's end, one per distance and type (a
    /// `retry`'s resubscriptions repeat the operators above it). Empty for other lanes.
    var operatorChain: [String] = []

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
    var identityLine: String { identityLine(placeLimit: Self.placeLimit) }

    /// The second heading line for a heading of `limit` characters: the place gives way
    /// first (``shortened(_:to:)``), so that its line number, the label and the id stay; then
    /// the label, cut with `…`, so that the id stays.
    func identityLine(fitting limit: Int) -> String {
        guard !isGroup, !isSuccession else { return identityLine }
        let id = object.id.description
        // The quotes and a space around the label; the place shortened as far as it goes (8
        // characters), and a space. With no room left, the label is `…` alone: there is one,
        // and `lifeline why` gives it.
        let placeLength = object.placeName.map { Self.shortened($0, to: 8).count + 1 } ?? 0
        let labelLimit = max(limit - id.count - 3 - placeLength, 1)
        let label = object.label.map { DisplayText($0, limit: labelLimit).short }
        guard object.placeName != nil else { return label.map { "\"\($0)\" \(id)" } ?? id }
        let rest = [label.map { "\"\($0)\"" }, id].compactMap { $0 }.joined(separator: " ")
        return identityLine(placeLimit: min(Self.placeLimit, max(limit - rest.count - 1, 8)), label: label)
    }

    private func identityLine(placeLimit: Int, label: String? = nil) -> String {
        if isGroup {
            return (operatorChain.isEmpty ? members.map(\.shortTypeName) : operatorChain).joined(separator: " → ")
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
        // Built up in place rather than joined from an array: every lane of a large trace is named.
        var line = object.placeName.map { Self.shortened($0, to: placeLimit) + " " } ?? ""
        if let label = label ?? object.label { line += "\"\(label)\" " }
        return line + object.id.description
    }

    /// The most characters of the place a heading shows.
    private static let placeLimit = 24

    /// `place` (`HomeScreenModel.swift:33`) in at most `limit` characters: `.swift` goes
    /// first, then the end of the file name, so that the line number stays
    /// (`HomeScreenMo…:33`).
    static func shortened(_ place: String, to limit: Int) -> String {
        // Printable ASCII, as nearly every place is: one character a byte, and the digits of
        // the line number the only numbers. Shortened bytewise, without grapheme breaking.
        if TraceText.isPrintableASCII(place) { return shortenedASCII(place, to: limit) }
        guard place.count > limit else { return place }
        var name = Substring(place), line = Substring("")
        if let colon = place.lastIndex(of: ":"), place[place.index(after: colon)...].allSatisfy(\.isNumber) {
            name = place[..<colon]
            line = place[colon...]
        }
        if name.hasSuffix(".swift") { name = name.dropLast(6) }
        guard name.count + line.count > limit else { return String(name + line) }
        let keep = limit - line.count - 1
        guard keep >= 4 else { return String(place.prefix(max(limit - 1, 1))) + "…" }
        return String(name.prefix(keep) + "…" + line)
    }

    /// ``shortened(_:to:)`` of a place in printable ASCII, counted in bytes.
    private static func shortenedASCII(_ place: String, to limit: Int) -> String {
        let bytes = Array(place.utf8)
        guard bytes.count > limit else { return place }
        var name = bytes[...], line = bytes[bytes.endIndex...]
        if let colon = bytes.lastIndex(of: UInt8(ascii: ":")),
           bytes[(colon + 1)...].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            name = bytes[..<colon]
            line = bytes[colon...]
        }
        if name.count >= 6, name.suffix(6).elementsEqual(".swift".utf8) { name = name.dropLast(6) }
        func text(_ parts: ArraySlice<UInt8>...) -> String { String(decoding: parts.joined(), as: UTF8.self) }
        guard name.count + line.count > limit else { return text(name, line) }
        let keep = limit - line.count - 1
        guard keep >= 4 else { return text(bytes.prefix(max(limit - 1, 1))) + "…" }
        return text(name.prefix(keep)) + "…" + text(line)
    }

    /// Both heading lines on one line, for formats that show participants in one line.
    var oneLineName: String { isGroup ? "\(typeLine): \(identityLine)" : "\(typeLine) \(identityLine)" }

    /// Both heading lines on one line after `prefix` (`from `), in at most `limit`
    /// characters: the place gives way first, so that its line number and the id stay. The
    /// whole name, with the place in full, is the tooltip.
    func oneLineName(fitting limit: Int, after prefix: String = "") -> DisplayText {
        let type = isGroup ? "\(typeLine):" : typeLine
        return DisplayText(
            "\(prefix)\(type) \(identityLine(fitting: limit - prefix.count - type.count - 1))", limit: limit,
            standingFor: "\(prefix)\(type) \(identityLine(placeLimit: .max))"
        )
    }

    /// The lane's lifeline ends at a death only for a lane of one object.
    var endsAtDeath: Bool { members.count <= 1 && !isGroup }

    /// What a tooltip says of the lane: every member's full type and id.
    var details: String {
        guard isGroup || isSuccession else {
            var details = [object.typeName, identityLine]
            if let origin = object.originPhrase { details.append(origin) }
            return details.joined(separator: " ")
        }
        return contents + ": " + members.map { "\($0.shortTypeName) \($0.id)" }.joined(separator: ", ")
    }

    /// What a group or succession lane holds, in words.
    private var contents: String {
        if isGroup { return "operators of " + (pipeline.map { "pipeline \($0)" } ?? "a pipeline") }
        let sources = members.filter { $0.role == .publisher }.count
        guard sources > 1 else {
            return members.count - sources == 1 ? "a source and the subscription it handed out" : "a source and the subscriptions it handed out"
        }
        return "sources one after another, with the subscriptions they handed out"
    }
}
