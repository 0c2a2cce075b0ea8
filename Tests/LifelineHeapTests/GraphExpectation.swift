@testable import LifelineHeap

/// A graph's edges in words, with names the test gives its objects, so that an expectation
/// compares whole edge sets.
struct NamedEdge: Hashable, CustomStringConvertible {
    let from: String
    let path: String
    let to: String
    let ownership: ReferenceOwnership

    init(_ from: String, _ path: String, _ to: String, _ ownership: ReferenceOwnership = .strong) {
        self.from = from
        self.path = path
        self.to = to
        self.ownership = ownership
    }

    var description: String { "\(from) -\(path)-> \(to) (\(ownership))" }
}

extension HeapGraph {
    /// The edges, naming each object by `names` (by address), or by its type name when it has
    /// no name there.
    func namedEdges(_ names: [UInt: String]) -> Set<NamedEdge> {
        func name(_ address: UInt) -> String { names[address] ?? nodes[address]?.typeName ?? "?" }
        return Set(references.map { NamedEdge(name($0.from), $0.path, name($0.to), $0.ownership) })
    }

    /// Every reference from `address` whose path is `path`.
    func targets(of address: UInt, path: String) -> [Reference] {
        references(from: address).filter { $0.path == path }
    }
}
