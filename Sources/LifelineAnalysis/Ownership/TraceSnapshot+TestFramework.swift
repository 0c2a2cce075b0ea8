import LifelineLog

extension TraceSnapshot {
    /// The live objects a test framework keeps while its test runs: those of the types XCTest
    /// and Swift Testing declare, and each running `XCTestCase`, which holds its
    /// `XCTestCaseRun` (`testRun`) and is held by it (`test`).
    ///
    /// They are expected to live: XCTest keeps every test case until its whole run ends. A
    /// loop through one of them (a test that stores a sink capturing `self` in its own
    /// properties) is the test framework's, not a leak; a loop a test case only holds (the
    /// model under test) is the program's.
    func testFrameworkObjects(in trace: Trace) -> Set<TraceObjectID> {
        var objects = Set<TraceObjectID>()
        for node in nodes where node.alive && (node.kind == .object || node.kind == .root) {
            guard let type = trace.object(node.id)?.typeName, type.hasPrefix("XCTest.") || type.hasPrefix("Testing.")
            else { continue }
            objects.insert(node.id)
            guard type == "XCTest.XCTestCaseRun" else { continue }
            for edge in edges(from: node.id) where edge.field == "test" {
                objects.insert(edge.to)
            }
            for holder in holders(of: node.id) where edges(from: holder).contains(where: { $0.to == node.id && $0.field == "testRun" }) {
                objects.insert(holder)
            }
        }
        return objects
    }
}
