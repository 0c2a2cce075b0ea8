extension DotGraph {
    /// The graph with its unconnected parts one below the other when laid out top to bottom,
    /// each as wide as it needs, instead of side by side.
    ///
    /// Weightless invisible edges from every node of a part to every node of the next rank
    /// the whole of each part below the whole of the one before, without pulling any node
    /// sideways; between larger parts they pass through an invisible point, so that they
    /// number as many as the nodes rather than their product. (Graphviz's own `packmode` stacks parts too, but with the dot layout
    /// Graphviz 2.42 then draws every edge label of the graph at one spot, and all but one
    /// are lost.) Parts keep the order of their first node.
    var stackingUnconnectedParts: DotGraph {
        let parts = unconnectedParts
        guard parts.count > 1 else { return self }
        var stacked = self
        let taken = Set(nodes.map(\.id))
        let hidden: [DotAttribute] = [.style([.invisible]), .weight(0)]
        for (index, (upper, lower)) in zip(parts, parts.dropFirst()).enumerated() {
            guard upper.count * lower.count > Self.directStackingEdges else {
                stacked.edges += upper.flatMap { from in lower.map { DotEdge(from: from, to: $0, attributes: hidden) } }
                continue
            }
            var spacer = "stack \(index + 1)"
            while taken.contains(spacer) { spacer += "'" }
            stacked.nodes.append(DotNode(id: spacer, attributes: [.label(""), .shape(.point), .style([.invisible])]))
            stacked.edges += upper.map { DotEdge(from: $0, to: spacer, attributes: hidden) }
            stacked.edges += lower.map { DotEdge(from: spacer, to: $0, attributes: hidden) }
        }
        return stacked
    }

    /// The most invisible edges drawn straight from one part to the next.
    static let directStackingEdges = 64

    /// The node ids of each set of nodes that edges connect, ignoring direction, in the order
    /// of their first node.
    var unconnectedParts: [[String]] {
        var position: [String: Int] = [:]
        for (index, node) in nodes.enumerated() where position[node.id] == nil { position[node.id] = index }
        var parent = Array(nodes.indices)
        func root(_ index: Int) -> Int {
            var index = index
            while parent[index] != index {
                parent[index] = parent[parent[index]]
                index = parent[index]
            }
            return index
        }
        for edge in edges {
            guard let from = position[edge.from], let to = position[edge.to] else { continue }
            let (a, b) = (root(from), root(to))
            if a != b { parent[max(a, b)] = min(a, b) }
        }
        var partOfRoot: [Int: Int] = [:]
        var parts: [[String]] = []
        for (index, node) in nodes.enumerated() where position[node.id] == index {
            let top = root(index)
            if let part = partOfRoot[top] {
                parts[part].append(node.id)
            } else {
                partOfRoot[top] = parts.count
                parts.append([node.id])
            }
        }
        return parts
    }
}
