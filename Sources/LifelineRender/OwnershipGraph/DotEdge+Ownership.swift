extension DotEdge {
    /// An edge for one stored reference of an ownership graph, labelled with its field.
    ///
    /// Strong references are solid, weak ones dashed, unowned ones dotted and
    /// `unowned(unsafe)` ones bold and dotted. An edge in a retain cycle is drawn thick in the
    /// warning colour.
    ///
    /// ```swift
    /// let edge = DotEdge.ownershipReference(
    ///     from: "o7", to: "o1", field: "receiveValue (closure)", reference: .strong,
    ///     isInCycle: true)
    /// ```
    ///
    /// - Parameters:
    ///   - from: The id of the object that holds the reference.
    ///   - to: The id of the object it refers to.
    ///   - field: The stored property or capture the reference lives in.
    ///   - reference: How the reference holds its object.
    ///   - isInCycle: Whether the reference is part of a retain cycle.
    public static func ownershipReference(
        from: String,
        to: String,
        field: String,
        reference: OwnershipReference,
        isInCycle: Bool = false
    ) -> DotEdge {
        var attributes: [DotAttribute] = [.label(field), .style(reference.lineStyles)]
        if isInCycle {
            attributes += [.color(.red), .fontColor(.red), .penWidth(2)]
        }
        return DotEdge(from: from, to: to, attributes: attributes)
    }
}

extension OwnershipReference {
    /// How an edge for this kind of reference is drawn.
    fileprivate var lineStyles: [DotStyle] {
        switch self {
        case .strong: [.solid]
        case .weak: [.dashed]
        case .unowned: [.dotted]
        case .unownedUnsafe: [.dotted, .bold]
        }
    }
}
