import Lifeline
import LifelineAnalysis
import LifelineLog
import OpenCombineShim
import XCTest

/// A test case that keeps a sink capturing `self` in its own properties, as tests commonly do:
/// the loop runs through XCTest's `XCTestCase ↔ XCTestCaseRun` pair, which XCTest keeps while
/// (and after) the test runs, so it is no leak; a real leak recorded in the same test still is.
final class TestFrameworkRootTests: XCTestCase {
    private var cancellables = Set<AnyCancellable>()
    private var received: [Int] = []

    /// The recording of a test body that stores a sink capturing `self`, and `leaking` more.
    private func record(snapshots: RecordingOptions.SnapshotPolicy, leaking: Bool) throws -> (Trace, [Diagnosis]) {
        let subject = PassthroughSubject<Int, Never>()
        let trace = try Lifeline.record(options: RecordingOptions(snapshots: snapshots)) {
            subject.sink { self.received.append($0) }.store(in: &cancellables)
            subject.map { $0 * 2 }.sink { [weak self] in self?.received.append($0) }.store(in: &cancellables)
            subject.send(1)
            if leaking { leaveADroppedRelay() }
        }
        return (trace, TraceAnalyzer().diagnose(trace))
    }

    func testALoopThroughTheTestCaseIsNoFinding() throws {
        for snapshots in [RecordingOptions.SnapshotPolicy.atStop, .everyCall] {
            let (trace, diagnoses) = try record(snapshots: snapshots, leaking: false)
            XCTAssertEqual(diagnoses.map(\.message), [], "\(snapshots)")
            // The snapshot did reach XCTest's objects through the sink's closure: the test is
            // about what the verdict makes of them.
            let stop = try XCTUnwrap(trace.snapshots.last)
            let type = { (node: TraceSnapshot.Node) in trace.object(node.id)?.typeName ?? "" }
            XCTAssertTrue(stop.nodes.contains { type($0) == "XCTest.XCTestCaseRun" }, "\(snapshots)")
            let testCase = try XCTUnwrap(stop.nodes.first { type($0).hasSuffix(".TestFrameworkRootTests") }).id
            let graph = OwnershipGraph(snapshot: stop, trace: trace)
            XCTAssertFalse(graph.strongCycles.contains { $0.objects.contains(testCase) }, "\(snapshots)")
            XCTAssertEqual(graph.retainCycles(in: TraceLifecycles(trace)), [], "\(snapshots)")
        }
    }

    func testARealLeakInTheSameTestIsStillReportedWithoutTheTestFramework() throws {
        for snapshots in [RecordingOptions.SnapshotPolicy.atStop, .everyCall] {
            let (trace, diagnoses) = try record(snapshots: snapshots, leaking: true)
            XCTAssertEqual(diagnoses.map(\.code), ["retain-cycle"], "\(snapshots): \(diagnoses.map(\.message))")
            let types = diagnoses.flatMap(\.objects).compactMap { trace.object($0)?.typeName }
            XCTAssertTrue(types.contains { $0.contains("LatestRelay") }, "\(snapshots): \(types)")
            XCTAssertFalse(types.contains { $0.hasPrefix("XCTest.") || $0.hasSuffix("TestFrameworkRootTests") }, "\(snapshots): \(types)")
        }
    }
}
