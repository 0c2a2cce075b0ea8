import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import LifelineHeap

/// Inspection of the objects real programs hold, from Foundation, Dispatch and the standard
/// library, as roots and through fields of type `Any`, `AnyObject` and their own type: it never
/// faults, names every node and only draws references between nodes it recorded.
@Suite struct RealObjectInspectionTests {
    final class AnyHolder {
        var value: Any
        init(_ value: Any) { self.value = value }
    }

    final class AnyObjectHolder {
        var object: AnyObject
        init(_ object: AnyObject) { self.object = object }
    }

    final class OptionalAnyHolder {
        var value: Any?
        init(_ value: Any?) { self.value = value }
    }

    /// The roots one specimen is inspected from: the holders, and the specimen itself when it
    /// is an object.
    static func roots(holding made: Specimen.Made) -> [AnyObject] {
        let value = made.value
        var roots: [AnyObject] = [AnyHolder(value), OptionalAnyHolder(value), made.typedHolder]
        if type(of: value) is AnyClass {
            let object = value as AnyObject
            roots += [object, AnyObjectHolder(object)]
        } else {
            // A value in an `AnyObject` is boxed: inspect the box too.
            roots.append(AnyObjectHolder(value as AnyObject))
        }
        return roots
    }

    /// Inspects from `roots` and checks the graph is well formed: every root that is an
    /// object the inspector can read is a node, every node has a type name, every reference
    /// joins two nodes.
    @discardableResult
    static func inspectWellFormed(_ roots: [AnyObject], objectLimit: Int = 10_000,
                                  sourceLocation: SourceLocation = #_sourceLocation) -> HeapGraph {
        let addresses = roots.map(HeapInspector.address(of:))
        let graph = HeapInspector(objectLimit: objectLimit).inspect(roots: addresses)
        for node in graph.nodes.values {
            #expect(!node.typeName.isEmpty, "node at \(node.address) has no type name", sourceLocation: sourceLocation)
        }
        for reference in graph.references {
            #expect(graph.nodes[reference.from] != nil && graph.nodes[reference.to] != nil,
                    "\(reference) joins an object the graph does not hold", sourceLocation: sourceLocation)
        }
        withExtendedLifetime(roots) {}
        return graph
    }

    @Test(arguments: Specimen.all)
    func inspectingARealObjectIsWellFormed(specimen: Specimen) {
        let made = specimen.make()
        let roots = Self.roots(holding: made)
        let graph = Self.inspectWellFormed(roots)
        // The holders are plain Swift classes: each must be a node.
        for holder in roots where holder is AnyHolder || holder is OptionalAnyHolder || holder is AnyObjectHolder {
            #expect(graph.nodes[HeapInspector.address(of: holder)] != nil, "\(specimen): a holder is missing")
        }
        made.cleanUp()
        withExtendedLifetime(made.value) {}
    }

    /// Every specimen at once, reached from one root through `Any` fields, so that the walk
    /// crosses from one kind of object to the next.
    @Test func inspectingEverySpecimenTogetherIsWellFormed() {
        let made = Specimen.all.map { $0.make() }
        let holders = made.map { AnyHolder($0.value) }
        let graph = Self.inspectWellFormed([Specimen.TypedHolder(holders)])
        #expect(graph.nodes.count > holders.count)
        for specimen in made { specimen.cleanUp() }
    }

    /// Specimens made and dropped by other threads, under a lock the inspector ignores.
    final class SpecimenChurn: @unchecked Sendable {
        private let lock = NSLock()
        private var held: [Any] = []
        private var stopped = false

        var isStopped: Bool { lock.withLock { stopped } }
        var isHolding: Bool { lock.withLock { !held.isEmpty } }
        func stop() { lock.withLock { stopped = true } }

        func replace(with specimen: Specimen) {
            let made = specimen.make()
            let dropped: [Any] = lock.withLock {
                held.append(made.value)
                guard held.count > 16 else { return [] }
                defer { held.removeFirst(8) }
                return Array(held.prefix(8))
            }
            made.cleanUp()
            withExtendedLifetime(dropped) {}
        }
    }

    @Test func inspectingWhileOtherThreadsMakeAndDropSpecimensIsWellFormed() {
        let churn = SpecimenChurn()
        let group = DispatchGroup()
        for thread in 0..<2 {
            DispatchQueue.global().async(group: group) {
                var index = thread
                while !churn.isStopped {
                    churn.replace(with: Specimen.all[index % Specimen.all.count])
                    index += 2
                }
            }
        }
        while !churn.isHolding { usleep(1_000) }
        for _ in 0..<100 {
            Self.inspectWellFormed([churn])
        }
        churn.stop()
        group.wait()
    }
}
