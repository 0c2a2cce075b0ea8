import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import LifelineHeap

/// Objects of Foundation, Dispatch and the standard library are drawn as one node each: their
/// internals are walked, not drawn, and the program's objects they hold deep inside become
/// their references.
@Suite struct SystemLibraryBoundaryTests {
    final class Leaf: Sendable {}

    final class Holder {
        let operation: BlockOperation
        let session = URLSession(configuration: .ephemeral)
        let queue = DispatchQueue(label: "boundary")
        let request = URLRequest(url: URL(string: "https://example.com")!)

        init(capturing leaf: Leaf) {
            operation = BlockOperation { withExtendedLifetime(leaf) {} }
        }
    }

    @Test func aLibraryObjectIsOneNodeAndWhatItHoldsOfTheProgramIsItsReference() throws {
        let leaf = Leaf()
        let holder = Holder(capturing: leaf)
        let root = HeapInspector.address(of: holder)
        let graph = HeapInspector().inspect(roots: [root])
        let leafAddress = HeapInspector.address(of: leaf)

        let operation = HeapInspector.address(of: holder.operation), session = HeapInspector.address(of: holder.session)
        let queue = HeapInspector.address(of: holder.queue)
        for library in [operation, session, queue] {
            #expect(graph.nodes[library]?.isOpaque == true)
        }
        #expect(graph.nodes[root]?.isOpaque == false)
        #expect(graph.nodes[leafAddress]?.isOpaque == false)
        let others = graph.nodes.values.filter { ![root, leafAddress, operation, session, queue].contains($0.address) }
        #expect(others.allSatisfy { $0.isOpaque }, "only the holder's library objects and the leaf: \(others.map(\.typeName))")

        let toLeaf = graph.references.filter { $0.to == leafAddress }
        #expect(toLeaf.count == 1)
        #expect(toLeaf.first?.from == operation)
        #expect(toLeaf.first?.path.hasSuffix("(closure)") == true, "\(toLeaf.map(\.path))")
        #expect(toLeaf.first?.ownership == .strong)
        #expect(graph.references.allSatisfy { $0.from != session && $0.from != queue }, "no program object inside")
        withExtendedLifetime((holder, leaf)) {}
    }

    @Test func aProgramObjectDeepInsideALibraryObjectIsReachedThroughItsInternals() throws {
        let leaf = Leaf()
        let queue = OperationQueue()
        queue.isSuspended = true
        queue.addOperation(BlockOperation { withExtendedLifetime(leaf) {} })
        final class QueueHolder {
            let queue: OperationQueue
            init(_ queue: OperationQueue) { self.queue = queue }
        }
        let holder = QueueHolder(queue)
        let graph = HeapInspector().inspect(roots: [HeapInspector.address(of: holder)])

        let toLeaf = graph.references.filter { $0.to == HeapInspector.address(of: leaf) }
        #expect(toLeaf.count == 1)
        #expect(toLeaf.first?.from == HeapInspector.address(of: queue))
        let path = try #require(toLeaf.first?.path)
        #expect(path.hasSuffix("._block (closure)"), "the path goes through the queue's operation: \(path)")
        #expect(graph.nodes.count == 3, "holder, queue and leaf: \(graph.nodes.values.map(\.typeName))")
        queue.cancelAllOperations()
        withExtendedLifetime((holder, leaf)) {}
    }

    @Test(arguments: ["Swift.Int", "FoundationNetworking.URLSession", "Dispatch.DispatchQueue", "Foundation.NSObject",
                      "FoundationEssentials.JSONDecoder", "_Concurrency.Task<()>"])
    func libraryTypeNamesAreOwnedByTheLibraries(name: String) {
        #expect(SystemLibrary.owns(name))
    }

    @Test(arguments: ["OpenCombine.AnyCancellable", "App.Swift", "SwiftUIish.View", "Foundationish.Model", "NoModule"])
    func programTypeNamesAreNot(name: String) {
        #expect(!SystemLibrary.owns(name))
    }
}
