import Testing
@testable import LifelineHeap

/// Hand-built classes whose references are known exactly: the inspector finds every one of
/// them, with its field and ownership, and nothing else.
@Suite struct GroundTruthTests {
    final class Leaf: Hashable {
        static func == (lhs: Leaf, rhs: Leaf) -> Bool { lhs === rhs }
        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    }

    class Base {
        var inherited: Leaf
        init(inherited: Leaf) { self.inherited = inherited }
    }

    struct Pair {
        var first: Leaf
        var second: Int
    }

    struct Borrowed {
        unowned var unownedLeaf: Leaf
        weak var weakLeaf: Leaf?
    }

    final class Fixture: Base {
        var strong: Leaf
        weak var weakRef: Leaf?
        unowned var unownedRef: Leaf
        unowned(unsafe) var unsafeRef: Leaf
        var optional: Leaf?
        var emptyOptional: Leaf?
        var closure: () -> Void = {}
        var weakClosure: () -> Void = {}
        var singleCapture: () -> Void = {}
        var unownedClosure: () -> Void = {}
        var optionalClosure: (() -> Void)?
        var boxedVariable: () -> Leaf = { Leaf() }
        var array: [Leaf]
        var emptyArray: [Leaf] = []
        var set: Set<Leaf>
        var dictionary: [Int: Leaf]
        var existential: AnyObject
        var pair: Pair
        var borrowed: Borrowed
        var number = 42
        var text = "a string long enough to live on the heap, not inline in the field"

        init(_ leaves: [String: Leaf]) {
            strong = leaves["strong"]!
            weakRef = leaves["weak"]!
            unownedRef = leaves["unowned"]!
            unsafeRef = leaves["unsafe"]!
            optional = leaves["optional"]!
            array = [leaves["array0"]!, leaves["array1"]!]
            set = [leaves["set"]!]
            dictionary = [7: leaves["dictionary"]!]
            existential = leaves["existential"]!
            pair = Pair(first: leaves["pair"]!, second: 3)
            borrowed = Borrowed(unownedLeaf: leaves["borrowedUnowned"]!, weakLeaf: leaves["borrowedWeak"]!)
            super.init(inherited: leaves["inherited"]!)
            let first = leaves["capture0"]!, second = leaves["capture1"]!, weakCapture = leaves["weakCapture"]!
            let single = leaves["single"]!
            closure = { _ = (first, second) }
            weakClosure = { [weak weakCapture] in _ = weakCapture }
            singleCapture = { _ = single }
            let unownedCapture = leaves["unownedCapture"]!, unsafeCapture = leaves["unsafeCapture"]!
            unownedClosure = { [unowned unownedCapture, unowned(unsafe) unsafeCapture] in _ = (unownedCapture, unsafeCapture) }
            let optionalCapture = leaves["optionalCapture"]!, variable = leaves["variable"]!
            optionalClosure = { _ = (optionalCapture, 1) }
            var current = variable
            boxedVariable = {
                defer { current = Leaf() }
                return current
            }
        }
    }

    static let leafNames = [
        "inherited", "strong", "weak", "unowned", "unsafe", "optional", "capture0", "capture1", "weakCapture", "single",
        "array0", "array1", "set", "dictionary", "existential", "pair", "unownedCapture", "unsafeCapture",
        "optionalCapture", "variable", "borrowedUnowned", "borrowedWeak",
    ]

    @Test func everyStoredReferenceIsFoundWithItsFieldAndOwnershipAndNothingElse() throws {
        let leaves = Dictionary(uniqueKeysWithValues: Self.leafNames.map { ($0, Leaf()) })
        let fixture = Fixture(leaves)
        let root = HeapInspector.address(of: fixture)
        let graph = HeapInspector().inspect(roots: [root])

        var names = [root: "fixture"]
        for (name, leaf) in leaves { names[HeapInspector.address(of: leaf)] = name }
        let storage = { (path: String) in graph.targets(of: root, path: path).first?.to }
        let arrayStorage = try #require(storage("array")), setStorage = try #require(storage("set"))
        let dictionaryStorage = try #require(storage("dictionary"))
        names[arrayStorage] = "array storage"
        names[setStorage] = "set storage"
        names[dictionaryStorage] = "dictionary storage"

        let expected: Set<NamedEdge> = [
            NamedEdge("fixture", "inherited", "inherited"),
            NamedEdge("fixture", "strong", "strong"),
            NamedEdge("fixture", "weakRef", "weak", .weak),
            NamedEdge("fixture", "unownedRef", "unowned", .unowned),
            NamedEdge("fixture", "unsafeRef", "unsafe", .unownedUnsafe),
            NamedEdge("fixture", "optional", "optional"),
            NamedEdge("fixture", "closure (closure)", "capture0"),
            NamedEdge("fixture", "closure (closure)", "capture1"),
            NamedEdge("fixture", "weakClosure (closure)", "weakCapture", .weak),
            NamedEdge("fixture", "singleCapture (closure)", "single"),
            NamedEdge("fixture", "unownedClosure (closure)", "unownedCapture", .unowned),
            NamedEdge("fixture", "unownedClosure (closure)", "unsafeCapture", .unownedUnsafe),
            NamedEdge("fixture", "optionalClosure (closure)", "optionalCapture"),
            NamedEdge("fixture", "boxedVariable (closure)", "variable"),
            NamedEdge("fixture", "array", "array storage"),
            NamedEdge("array storage", "[0]", "array0"),
            NamedEdge("array storage", "[1]", "array1"),
            NamedEdge("fixture", "set", "set storage"),
            NamedEdge("set storage", "[0]", "set"),
            NamedEdge("fixture", "dictionary", "dictionary storage"),
            NamedEdge("dictionary storage", "[0]", "dictionary"),
            NamedEdge("fixture", "existential", "existential"),
            NamedEdge("fixture", "pair.first", "pair"),
            NamedEdge("fixture", "borrowed.unownedLeaf", "borrowedUnowned", .unowned),
            NamedEdge("fixture", "borrowed.weakLeaf", "borrowedWeak", .weak),
        ]
        let found = graph.namedEdges(names)
        #expect(found.subtracting(expected).isEmpty, "extra edges: \(found.subtracting(expected))")
        #expect(expected.subtracting(found).isEmpty, "missing edges: \(expected.subtracting(found))")
        #expect(graph.references.count == expected.count, "no edge is reported twice")
        #expect(graph.nodes.count == 1 + leaves.count + 3)
        #expect(graph.nodes[setStorage]?.isCollection == true)
        #expect(graph.nodes[setStorage]?.typeName == "Swift.Set<LifelineHeapTests.GroundTruthTests.Leaf>")
        #expect(graph.nodes[root]?.typeName == "LifelineHeapTests.GroundTruthTests.Fixture")
        withExtendedLifetime((leaves, fixture)) {}
    }

    @Test func countsAreTheRuntimesCounts() throws {
        let leaves = Dictionary(uniqueKeysWithValues: Self.leafNames.map { ($0, Leaf()) })
        let fixture = Fixture(leaves)
        let graph = HeapInspector().inspect(roots: [HeapInspector.address(of: fixture)])
        // `leaves` holds each leaf once; the fixture holds "strong" strongly, the others not.
        for (name, strong) in [("weak", 1), ("unowned", 1), ("strong", 2)] {
            let leaf = try #require(leaves[name])
            let counts = try #require(graph.nodes[HeapInspector.address(of: leaf)]?.counts)
            #expect(counts.weak == _getWeakRetainCount(leaf), "\(name)")
            #expect(counts.unowned == _getUnownedRetainCount(leaf), "\(name)")
            #expect(counts.strong == strong, "\(name)")
        }
        withExtendedLifetime((leaves, fixture)) {}
    }

    @Test func aDeadWeakReferenceGivesNoEdge() {
        let fixture = Fixture(Dictionary(uniqueKeysWithValues: Self.leafNames.map { ($0, Leaf()) }))
        fixture.weakRef = nil
        do {
            let doomed = Leaf()
            fixture.weakRef = doomed
        }
        let graph = HeapInspector().inspect(roots: [HeapInspector.address(of: fixture)])
        #expect(graph.targets(of: HeapInspector.address(of: fixture), path: "weakRef").isEmpty)
        withExtendedLifetime(fixture) {}
    }
}
