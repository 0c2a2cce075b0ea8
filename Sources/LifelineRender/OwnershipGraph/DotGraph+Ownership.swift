extension DotGraph {
    /// The font families every ownership graph uses.
    static let ownershipFontName = "Helvetica,Arial,sans-serif"

    /// An empty ownership graph laid out left to right, with Lifeline's fonts and colours.
    ///
    /// Fill it with ``DotNode/ownershipObject(id:label:kind:isDeallocated:isInCycle:)`` nodes
    /// and ``DotEdge/ownershipReference(from:to:field:reference:isInCycle:)`` edges.
    ///
    /// - Parameter name: The graph's name.
    public static func ownershipGraph(name: String) -> DotGraph {
        DotGraph(
            name: name,
            graphAttributes: [.rankDirection(.leftToRight), .fontName(ownershipFontName)],
            nodeDefaults: [
                .fontName(ownershipFontName), .fontSize(12), .color(.ink), .fontColor(.ink),
            ],
            edgeDefaults: [
                .fontName(ownershipFontName), .fontSize(10), .color(.ink), .fontColor(.ink),
            ]
        )
    }
}
