import LifelineLog

extension OwnershipGraph {
    /// What tells apart the objects of a snapshot that share a name.
    enum NamesakeDistinction: Hashable, Sendable {
        /// Where each one's pipeline was made: every one has a place, and no two the same.
        case place
        /// The label and the place together, which differ for each.
        case labelAndPlace
        /// Nothing the program wrote: the id.
        case id
    }

    /// How the objects of the snapshot that share a ``name(of:)`` with another one are told
    /// apart, by that name: decided once for all of them, so that naming an object costs the
    /// same however many share its name.
    static func namesakeDistinctions(of snapshot: TraceSnapshot, trace: Trace) -> [String: NamesakeDistinction] {
        var byName: [String: [TraceObjectID]] = [:]
        for node in snapshot.nodes {
            byName[node.name ?? trace.object(node.id)?.shortTypeName ?? "object \(node.id)", default: []].append(node.id)
        }
        return byName.filter { $0.value.count > 1 }.mapValues { namesakes in
            let declared = namesakes.map { trace.object($0) }
            let places = declared.map { $0?.placeName }
            let labels = declared.map { $0?.label }
            if places.allSatisfy({ $0 != nil }) && Set(places).count == namesakes.count { return .place }
            if labels.contains(where: { $0 != nil }),
               Set(zip(places, labels).map { "\($0 ?? "")\u{0}\($1 ?? "")" }).count == namesakes.count {
                return .labelAndPlace
            }
            return .id
        }
    }

    /// How an explanation names `object`: by ``name(of:)`` (`Retry.Inner`) when no other
    /// object of the snapshot has that name, otherwise with what tells it apart from them, the
    /// way the program names them: where its pipeline was made (`Timeout.Inner
    /// (ConnectionModel.swift:32)`) when that differs for each of them, else with the labels
    /// too (`Sink "ui" (Search.swift:24)`) when those do, else by id (`Timeout.Inner #116`).
    public func distinctName(of object: TraceObjectID) -> String {
        let name = name(of: object)
        guard let distinction = namesakeDistinctions[name] else { return name }
        let mine = trace.object(object)
        let place = mine?.placeName.map { " (\($0))" } ?? ""
        switch distinction {
        case .place: return name + place
        case .labelAndPlace: return name + (mine?.label.map { " \"\($0)\"" } ?? "") + place
        case .id: return "\(name) \(object)"
        }
    }
}
