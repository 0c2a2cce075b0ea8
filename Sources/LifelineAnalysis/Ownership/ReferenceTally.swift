import LifelineLog

/// How many references of one ownership the runtime counted to an object in a snapshot, and
/// how many of them the graph draws.
///
/// The runtime's counts are what it reports, not what the graph explains: the stack, globals,
/// the compiler's temporaries and objects the inspection did not reach hold references the
/// graph cannot draw. The weak count leaves out the runtime's own one and the recorder's
/// weak references; the unowned count leaves out the runtime's own one.
public struct ReferenceTally: Hashable, Sendable {
    /// `strong`, `weak` or `unowned`. (`unowned(unsafe)` references are not counted by the
    /// runtime.)
    public let ownership: TraceSnapshot.Ownership
    /// The references the runtime counted.
    public let counted: Int
    /// The references the graph draws.
    public let drawn: Int

    /// The counted references the graph does not draw; 0 when it draws more than were
    /// counted (a reference that changed while the snapshot was taken).
    public var undrawn: Int {
        max(0, counted - drawn)
    }

    /// `strong 3 (1 drawn)`.
    public var summary: String {
        "\(ownership.rawValue) \(counted) (\(drawn) drawn)"
    }
}

extension OwnershipGraph {
    /// The strong, weak and unowned tallies of a live object whose counts were read; weak
    /// and unowned only when the object has such references or the graph draws some. `nil`
    /// when the snapshot has no counts for the object.
    public func tallies(of id: TraceObjectID) -> [ReferenceTally]? {
        guard let node = node(id), node.alive, let counts = node.retainCounts else { return nil }
        let drawn = { (ownership: TraceSnapshot.Ownership) in drawnReferences[id]?[ownership] ?? 0 }
        let tallies = [
            ReferenceTally(ownership: .strong, counted: counts.strong, drawn: drawn(.strong)),
            ReferenceTally(ownership: .weak, counted: counts.programWeak, drawn: drawn(.weak)),
            ReferenceTally(ownership: .unowned, counted: counts.unownedReferences, drawn: drawn(.unowned)),
        ]
        return tallies.filter { $0.ownership == .strong || $0.counted > 0 || $0.drawn > 0 }
    }
}

extension OwnershipGraph {
    /// The counts of a live object in words, naming it as `subject`: how many strong
    /// references the runtime counted, how many the graph draws and where the rest can be;
    /// then its weak and unowned references, if any. `nil` for an object that was not alive
    /// in the snapshot.
    ///
    /// For example `The runtime counts 3 strong references to Sink #7 and the graph draws 1:
    /// the other 2 are held from the stack, a global, a compiler temporary or an object the
    /// inspection did not reach.`
    public func countSentence(of id: TraceObjectID, subject: String) -> String? {
        guard node(id)?.alive == true else { return nil }
        guard let tallies = tallies(of: id), let strong = tallies.first else {
            return "The snapshot could not read \(subject)'s reference counts."
        }
        var sentence = "The runtime counts \(Self.references(strong.counted, "strong")) to \(subject)"
        if strong.undrawn == 0 {
            sentence += strong.counted == 1 ? ", and the graph draws it." : ", and the graph draws them all."
        } else {
            let undrawn = strong.drawn == 0
                ? (strong.counted == 1 ? "none: it is" : "none: they are")
                : "\(strong.drawn): the other \(strong.undrawn) \(strong.undrawn == 1 ? "is" : "are")"
            sentence += " and the graph draws \(undrawn) held from the stack, a global, a compiler temporary or an object "
                + "the inspection did not reach."
        }
        let others = tallies.dropFirst().map { "\(Self.references($0.counted, $0.ownership.rawValue)) (\($0.drawn) drawn)" }
        if !others.isEmpty {
            sentence += " It also has \(others.joined(separator: " and "))."
        }
        return sentence
    }

    private static func references(_ count: Int, _ ownership: String) -> String {
        "\(count) \(ownership) reference\(count == 1 ? "" : "s")"
    }
}
