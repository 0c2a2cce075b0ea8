/// What the program's global and static variables hold of a reference graph: the references
/// their storage holds to its objects, directly or through objects outside it
/// (``HeapInspector/inspectGlobals(_:reaching:excluding:)``).
package struct GlobalHoldings: Sendable {
    /// One reference a variable's storage holds.
    package struct Holding: Hashable, Sendable {
        package let variable: GlobalVariable
        /// Where in the variable's storage the reference is, in bytes: 0 for a variable of a
        /// class type; more for a reference stored in a struct or tuple the variable holds.
        package let offset: Int
        /// The object it refers to: one of the graph asked about, or one of ``objects``.
        package let object: UInt
    }

    /// The references, by variable address, then offset.
    package var holdings: [Holding] = []
    /// The objects between the variables and the graph asked about, each on a chain of
    /// references from a variable to one of the graph's objects, with the references of those
    /// chains (their targets in ``objects`` or in the graph asked about). The graph's own
    /// objects are not among its nodes.
    package var objects = HeapGraph()
}
