import Testing
@testable import LifelineHeap

/// A service the program keeps in a static variable, and what it holds.
final class GloballyHeldService {
    nonisolated(unsafe) static let shared = GloballyHeldService()
    var registry = GloballyHeldRegistry()
}

/// An object only the shared service's registry reaches.
final class GloballyHeldRegistry {
    var entries: [GloballyHeldEntry] = []
}

/// The object a test asks about.
final class GloballyHeldEntry {}

/// A top-level variable that holds an entry directly.
nonisolated(unsafe) let globallyHeldEntry = GloballyHeldEntry()

/// The variables of the program's images are found by their storage's symbols and named as
/// the program writes them; what they hold of a graph is found through the objects between.
@Suite(.serialized) struct GlobalHoldingsTests {
    private func variable(_ qualifiedName: String) throws -> GlobalVariable {
        let variables = ProgramGlobals.variables(excluding: { _ in false })
        return try #require(variables.first { $0.qualifiedName == qualifiedName }, "\(variables.count) variables")
    }

    @Test func aStaticAndATopLevelVariableAreFoundWithTheirDeclarations() throws {
        let shared = try variable("LifelineHeapTests.GloballyHeldService.shared")
        #expect(shared.isStatic && shared.module == "LifelineHeapTests")
        #expect(shared.declaration == "static GloballyHeldService.shared")
        #expect(shared.size == MemoryLayout<GloballyHeldService>.size)
        let entry = try variable("LifelineHeapTests.globallyHeldEntry")
        #expect(!entry.isStatic && entry.declaration == "global globallyHeldEntry")
        #expect(ProgramGlobals.variables(excluding: { $0 == "LifelineHeapTests" }).allSatisfy { $0.module != "LifelineHeapTests" })
    }

    @Test func aVariableHoldsAnObjectDirectlyAndThroughTheObjectsBetween() throws {
        let entry = GloballyHeldEntry()
        let service = GloballyHeldService.shared
        service.registry.entries = [entry]
        defer { service.registry.entries = [] }
        let targets = [
            HeapInspector.address(of: entry): _typeName(GloballyHeldEntry.self, qualified: true),
            HeapInspector.address(of: globallyHeldEntry): _typeName(GloballyHeldEntry.self, qualified: true),
        ]
        let variables = try [variable("LifelineHeapTests.GloballyHeldService.shared"), variable("LifelineHeapTests.globallyHeldEntry")]
        let found = HeapInspector().inspectGlobals(variables, reaching: targets)

        let holdings = found.holdings.map { "\($0.variable.declaration)+\($0.offset)" }
        #expect(Set(holdings) == ["static GloballyHeldService.shared+0", "global globallyHeldEntry+0"], "\(holdings)")
        #expect(found.holdings.first { !$0.variable.isStatic }?.object == HeapInspector.address(of: globallyHeldEntry))
        // The service, its registry and the registry's array lead to the entry; the entry is
        // the graph's own, not among the objects between.
        let between = Set(found.objects.nodes.values.map(\.typeName))
        #expect(between.contains(_typeName(GloballyHeldService.self, qualified: true)), "\(between)")
        #expect(between.contains(_typeName(GloballyHeldRegistry.self, qualified: true)), "\(between)")
        #expect(found.objects.nodes[HeapInspector.address(of: entry)] == nil)
        #expect(found.objects.references.contains { $0.to == HeapInspector.address(of: entry) })
        withExtendedLifetime(entry) {}
    }

    @Test func aVariableThatLeadsToNoneOfTheGraphHoldsNothingOfIt() throws {
        let service = GloballyHeldService.shared
        let unrelated = GloballyHeldEntry()
        let found = HeapInspector().inspectGlobals(
            [try variable("LifelineHeapTests.GloballyHeldService.shared")],
            reaching: [HeapInspector.address(of: unrelated): _typeName(GloballyHeldEntry.self, qualified: true)]
        )
        #expect(found.holdings.isEmpty && found.objects.nodes.isEmpty)
        withExtendedLifetime((service, unrelated)) {}
    }
}
