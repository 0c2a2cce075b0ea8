extension DotNode {
    /// A node for one object of an ownership graph, styled by its kind and state.
    ///
    /// Each kind has its own shape and colour (see ``OwnershipNodeKind``). A deallocated object
    /// is greyed and outlined with dashes; an object in a retain cycle is outlined thickly in
    /// the warning colour, which wins over the grey.
    ///
    /// ```swift
    /// let sink = DotNode.ownershipObject(
    ///     id: "o7", label: "Sink\nretain count 2", kind: .subscriber, isInCycle: true)
    /// ```
    ///
    /// - Parameters:
    ///   - id: The object's id in the graph.
    ///   - label: The text shown, for example the type name and the retain count on two lines.
    ///   - kind: What the object is.
    ///   - isDeallocated: Whether the object was already deallocated.
    ///   - isInCycle: Whether the object is part of a retain cycle.
    public static func ownershipObject(
        id: String,
        label: String,
        kind: OwnershipNodeKind,
        isDeallocated: Bool = false,
        isInCycle: Bool = false
    ) -> DotNode {
        let (shape, outline, fill, kindStyles) = kind.appearance
        var styles = kindStyles + [.filled]
        var attributes: [DotAttribute] = [.label(label), .shape(shape)]
        if isDeallocated {
            styles.append(.dashed)
            attributes += [.fillColor(.greyTint), .fontColor(.grey)]
        } else {
            attributes.append(.fillColor(fill))
        }
        if isInCycle {
            attributes += [.color(.red), .penWidth(2)]
        } else {
            attributes.append(.color(isDeallocated ? .grey : outline))
        }
        attributes.append(.style(styles))
        return DotNode(id: id, attributes: attributes)
    }
}

extension OwnershipNodeKind {
    /// The shape, outline colour, fill colour and extra styles of a live object of this kind.
    fileprivate var appearance: (DotShape, DotColor, DotColor, [DotStyle]) {
        switch self {
        case .publisher: (.box, .blue, .blueTint, [.rounded])
        case .subscription: (.box, .green, .greenTint, [])
        case .subscriber: (.ellipse, .purple, .purpleTint, [])
        case .cancellable: (.hexagon, .orange, .orangeTint, [])
        case .userObject: (.note, .yellow, .yellowTint, [])
        }
    }
}
