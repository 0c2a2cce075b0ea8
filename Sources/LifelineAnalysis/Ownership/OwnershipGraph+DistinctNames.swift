import LifelineLog

extension OwnershipGraph {
    /// The objects of the snapshot that share a ``name(of:)`` with another one, by that name.
    static func objectsSharingNames(of snapshot: TraceSnapshot, trace: Trace) -> [String: [TraceObjectID]] {
        var byName: [String: [TraceObjectID]] = [:]
        for node in snapshot.nodes {
            byName[node.name ?? trace.object(node.id)?.shortTypeName ?? "object \(node.id)", default: []].append(node.id)
        }
        return byName.filter { $0.value.count > 1 }
    }

    /// How an explanation names `object`: by ``name(of:)`` (`Retry.Inner`) when no other
    /// object of the snapshot has that name, otherwise with what tells it apart from them, the
    /// way the program names them: where its pipeline was made (`Timeout.Inner
    /// (ConnectionModel.swift:32)`) when that differs for each of them, else with the labels
    /// too (`Sink "ui" (Search.swift:24)`) when those do, else by id (`Timeout.Inner #116`).
    public func distinctName(of object: TraceObjectID) -> String {
        let name = name(of: object)
        guard let namesakes = objectsSharingNames[name] else { return name }
        let declared = namesakes.map { trace.object($0) }
        let places = declared.map { $0?.placeName }
        let labels = declared.map { $0?.label }
        let mine = trace.object(object)
        let place = mine?.placeName.map { " (\($0))" } ?? ""
        if places.allSatisfy({ $0 != nil }) && Set(places).count == namesakes.count { return name + place }
        if labels.contains(where: { $0 != nil }),
           Set(zip(places, labels).map { "\($0 ?? "")\u{0}\($1 ?? "")" }).count == namesakes.count {
            return name + (mine?.label.map { " \"\($0)\"" } ?? "") + place
        }
        return "\(name) \(object)"
    }
}
