extension HeapInspector {
    /// How much of a variable's storage is read for references: a class reference, an
    /// existential, or a small struct of them. A larger variable's first words only.
    static let globalStorageLimit = 256

    /// What `variables` hold of the graph whose objects are `targets` (address to fully
    /// qualified type name, as an earlier inspection read them): each reference a variable's
    /// storage holds to one of those objects, or to an object from which a chain of references
    /// leads to one, with the objects of those chains.
    ///
    /// A variable is read without its type: each aligned word of its storage (at most
    /// ``globalStorageLimit`` bytes) that is the address of a validated object counts as a
    /// reference to it. A weak variable's word is a side table's, never an object's, and is not
    /// taken. The walk from the variables stops at `objectLimit` objects; chains beyond it are
    /// not found. The targets' fields are not read again.
    package func inspectGlobals(
        _ variables: [GlobalVariable], reaching targets: [UInt: String], objectLimit: Int = 2_000,
        excluding: (UInt, String) -> Bool = { _, _ in false }
    ) -> GlobalHoldings {
        shared.lock.withLock { _ in
            withoutActuallyEscaping(excluding) { excluding in
                var walk = HeapWalk(
                    catalog: shared.catalog, objectLimit: objectLimit, known: { targets[$0] }, memory: shared.memory(),
                    excluding: excluding
                )
                var holdings: [GlobalHoldings.Holding] = []
                let wordSize = MemoryLayout<UInt>.size
                for variable in variables where variable.address % UInt(wordSize) == 0 {
                    for offset in stride(from: 0, to: min(variable.size, Self.globalStorageLimit) - wordSize + 1, by: wordSize) {
                        guard let word = walk.memory.word(at: variable.address + UInt(offset)), word != 0,
                              let layout = walk.instanceLayout(at: word), !excluding(word, layout.typeName)
                        else { continue }
                        holdings.append(GlobalHoldings.Holding(variable: variable, offset: offset, object: word))
                    }
                }
                var seen = Set<UInt>()
                walk.run(roots: holdings.map(\.object).filter { seen.insert($0).inserted })
                return Self.chains(from: holdings, in: walk.graph, to: targets)
            }
        }
    }

    /// The holdings and objects of `graph` that lead to one of `targets`.
    private static func chains(
        from holdings: [GlobalHoldings.Holding], in graph: HeapGraph, to targets: [UInt: String]
    ) -> GlobalHoldings {
        var holdersOf: [UInt: [UInt]] = [:]
        for reference in graph.references { holdersOf[reference.to, default: []].append(reference.from) }
        var leading = Set<UInt>()
        var pending = graph.nodes.keys.filter { targets[$0] != nil }
        while let address = pending.popLast() {
            guard leading.insert(address).inserted else { continue }
            pending += holdersOf[address] ?? []
        }
        var result = GlobalHoldings()
        result.holdings = holdings.filter { leading.contains($0.object) || targets[$0.object] != nil }
        for (address, node) in graph.nodes where leading.contains(address) && targets[address] == nil {
            result.objects.nodes[address] = node
        }
        result.objects.references = graph.references.filter { leading.contains($0.from) && leading.contains($0.to) && targets[$0.from] == nil }
        return result
    }
}
