import Lifeline
import LifelineAnalysis
import LifelineLog
import OpenCombineShim
import Testing

/// A search screen's model that owns its query subject and normalizes queries with its own
/// method: the `map` closure captures the model, so the model, its subject and the
/// subscription keep one another once the screen lets go of the model.
final class SearchModel {
    let query = PassthroughSubject<String, Never>()
    private var cancellables = Set<AnyCancellable>()
    private(set) var results: [String] = []

    /// The line of the `map` closure that captures the model.
    static let mapLine = #line + 4

    func bind() {
        query
            .map { self.normalize($0) }
            .sink { [weak self] in self?.results.append($0) }
            .store(in: &cancellables)
    }

    private func normalize(_ text: String) -> String { text.lowercased() }
}

/// A closure on a loop is named by where it is written, the closure's own line, not by the
/// Combine object that stores it or the line its pipeline was subscribed at.
@Suite("Closures named by their own line", .serialized)
struct ClosurePlaceTests {
    private func retainCycle(options: RecordingOptions) throws -> Diagnosis {
        let trace = try Lifeline.record(options: options) {
            let model = SearchModel()
            model.bind()
            model.query.send("A")
            #expect(model.results == ["a"])
        }
        let diagnoses = TraceAnalyzer().diagnose(trace)
        let cycle = try #require(diagnoses.count == 1 ? diagnoses.first : nil, "\(diagnoses.map(\.message))")
        #expect(cycle.code == "retain-cycle")
        #expect(cycle.severity == .error)
        return cycle
    }

    @Test(arguments: [RecordingOptions.SnapshotPolicy.atStop, .everyCall])
    func theFixNamesTheMapClosureByItsLine(snapshots: RecordingOptions.SnapshotPolicy) throws {
        let cycle = try retainCycle(options: RecordingOptions(snapshots: snapshots))
        let place = "ClosurePlaceTests.swift:\(SearchModel.mapLine)"
        #expect(cycle.fix.contains("capture SearchModel weakly (`[weak self]`) in the closure at \(place) (closure #1 in "
            + "SearchModel.bind, which PassthroughSubject.Conduit holds in downstream.subscriber.map)"), "\(cycle.fix)")
        let references = cycle.leakTrace?.steps.compactMap(\.reference) ?? []
        #expect(references.contains("PassthroughSubject.Conduit.downstream.subscriber.map (closure) at \(place)"), "\(references)")
    }

    @Test func bothRecordingModesGiveTheFindingOneFingerprint() throws {
        let atStop = try retainCycle(options: RecordingOptions(snapshots: .atStop))
        let everyCall = try retainCycle(options: RecordingOptions(snapshots: .everyCall))
        #expect(atStop.fingerprint == everyCall.fingerprint)
    }

    @Test func withoutCallSitesTheFixNamesTheHolderAndNoLine() throws {
        let cycle = try retainCycle(options: RecordingOptions(callSites: false))
        #expect(cycle.fix.contains("capture SearchModel weakly in PassthroughSubject.Conduit's closure (`[weak self]`)"), "\(cycle.fix)")
        #expect(!cycle.fix.contains("ClosurePlaceTests.swift"), "\(cycle.fix)")
    }
}
