import Testing
@testable import LifelineHeap

/// Closures whose captures the runtime cannot name by type alone: a captured closure (a
/// lowered function type), a generic closure's captures (typed by its bindings), a closure
/// stored in `Any` (a thunk capturing the closure), and an array a closure holds as its
/// whole context.
@Suite struct ClosureCaptureTests {
    final class Leaf: CustomStringConvertible {
        var description: String { "leaf" }
    }

    struct Wrapper {
        let number: Int
        let leaf: Leaf
    }

    final class Holder {
        var nested: () -> Void = {}
        var generic: () -> Void = {}
        var constrained: () -> Void = {}
        var values: () -> Void = {}
        var any: Any = 0
        var array: () -> Void = {}
    }

    static func capturing<T: AnyObject, U: AnyObject>(_ first: T, _ second: U) -> () -> Void {
        { withExtendedLifetime((first, second)) {} }
    }

    /// A witness table joins the bindings: the capture's type is still the parameter's.
    static func describing<T: CustomStringConvertible & AnyObject, U>(_ first: T, _ second: U) -> () -> Void {
        { _ = (first.description, second) }
    }

    @Test func capturesTheRuntimeCannotNameAreReadByWhatTheContextSays() throws {
        let leaves = (0..<9).map { _ in Leaf() }
        let holder = Holder()
        let inner = { [leaf = leaves[0]] in withExtendedLifetime(leaf) {} }
        holder.nested = { inner() }
        holder.generic = Self.capturing(leaves[1], leaves[2])
        holder.constrained = Self.describing(leaves[3], Wrapper(number: 7, leaf: leaves[4]))
        // An Int equal to a live object's address, as a generic capture, is not a reference.
        holder.values = Self.describing(leaves[5], HeapInspector.address(of: leaves[8]))
        holder.any = { [leaf = leaves[6]] in withExtendedLifetime(leaf) {} } as () -> Void
        let array = [leaves[7]]
        holder.array = { _ = array }

        let root = HeapInspector.address(of: holder)
        let graph = HeapInspector().inspect(roots: [root])
        var names = [root: "holder"]
        for (index, leaf) in leaves.enumerated() { names[HeapInspector.address(of: leaf)] = "leaf\(index)" }
        let storage = try #require(graph.targets(of: root, path: "array (closure)").first?.to)
        names[storage] = "array storage"
        let expected: Set<NamedEdge> = [
            NamedEdge("holder", "nested (closure)", "leaf0"),
            NamedEdge("holder", "generic (closure)", "leaf1"),
            NamedEdge("holder", "generic (closure)", "leaf2"),
            NamedEdge("holder", "constrained (closure)", "leaf3"),
            NamedEdge("holder", "constrained (closure).leaf", "leaf4"),
            NamedEdge("holder", "values (closure)", "leaf5"),
            NamedEdge("holder", "any (closure)", "leaf6"),
            NamedEdge("holder", "array (closure)", "array storage"),
            NamedEdge("array storage", "[0]", "leaf7"),
        ]
        let found = graph.namedEdges(names)
        #expect(found.subtracting(expected).isEmpty, "extra edges: \(found.subtracting(expected))")
        #expect(expected.subtracting(found).isEmpty, "missing edges: \(expected.subtracting(found))")
        #expect(graph.nodes[storage]?.isCollection == true)
        withExtendedLifetime((holder, leaves, inner)) {}
    }

    /// A closure context with no generic bindings can still name its captures' types by the
    /// parameters of the function that made it. Without a generic context the runtime cannot
    /// resolve such a name, and for a dependent member type it aborts the process ("Expected
    /// a metadata pack but got metadata"): OpenCombine's suite, recorded with per-call
    /// snapshots, died so in about half its runs on the capture type
    /// `<ref>y5Input<ref>Qz7FailureACQzG` (each `<ref>` a symbolic reference, one marker byte
    /// here). None of these is given to the runtime.
    @Test(arguments: ["x", "Sayxq_G", "6ProductQz", "SaySi6ElementQyd__G", "ABC5LeafCy7ProductQzG", "\u{01}1234yxG",
                      "5Inner8RetainedVQp", "\u{02}y5Input\u{02}Qz7FailureACQzG", "\u{01}yxq_q0_q1_GSgXw", "\u{01}y_x_G"])
    func namesOfGenericParametersAreNotResolvedWithoutAContext(name: String) {
        #expect(MangledName.mayNameGenericParameter(Array(name.utf8)))
    }

    /// Identifiers and substitutions holding the letters of a parameter's mangling are read
    /// past, so concrete types are still resolved.
    @Test func concreteNamesAreResolvedWithoutAContext() {
        struct QxQueue {}
        struct QueueQueueQueue {}
        for name in [_mangledTypeName([Int].self), _mangledTypeName(Int?.self), _mangledTypeName([String: QxQueue].self),
                     _mangledTypeName(QueueQueueQueue.self), _mangledTypeName([QxQueue?].self),
                     _mangledTypeName((UInt8, Int64, Float, Double?).self)] {
            let bytes = Array((name ?? "x").utf8)
            #expect(!MangledName.mayNameGenericParameter(bytes), "\(name ?? "no name")")
        }
        // Captures of local variables by address (`inout_aliasable`), as closures name them.
        for name in ["Siz_Xx", "SaySSGz_Xx", "\u{02}_pSgz_Xx"] {
            #expect(!MangledName.mayNameGenericParameter(Array(name.utf8)), "\(name)")
        }
    }

    @Test(arguments: [("x", 0), ("qz", 0), ("q_", 1), ("q0_", 2), ("q12_", 14)])
    func genericParameterNames(name: String, index: Int) {
        #expect(RuntimeLayout.genericParameterIndex(Array(name.utf8)) == index)
    }

    @Test(arguments: ["", "y", "q", "qd__", "Si", "q1x_", "4Leaf"])
    func otherNamesAreNoGenericParameter(name: String) {
        #expect(RuntimeLayout.genericParameterIndex(Array(name.utf8)) == nil)
    }

    @Test(arguments: [("Ieg_", true), ("SiIegd_", true), ("IeAgH_", true), ("Iegn_", true), ("Iet_", false),
                      ("IeAt_", false), ("IeyB_", false), ("IegC_", false), ("Si", false), ("yyc", false)])
    func loweredFunctionTypes(name: String, isThick: Bool) {
        #expect(RuntimeLayout.isThickLoweredFunction(Array(name.utf8)) == isThick)
    }

    /// A `Task`'s operation is `@isolated(any)`: its isolation follows the function and context.
    @Test(arguments: [("xIeAgHr_", true), ("IeAgH_", true), ("Ieg_", false), ("IeAt_", false), ("SiIegd_", false)])
    func isolatedLoweredFunctionTypes(name: String, isIsolated: Bool) {
        #expect(RuntimeLayout.isIsolatedThickLoweredFunction(Array(name.utf8)) == isIsolated)
    }

    @Test(arguments: [("xIeAgHr_", true), ("IegH_", true), ("Ieg_", false), ("IeAg_", false), ("IetH_", false)])
    func asyncLoweredFunctionTypes(name: String, isAsync: Bool) {
        #expect(RuntimeLayout.isAsyncThickLoweredFunction(Array(name.utf8)) == isAsync)
    }
}
