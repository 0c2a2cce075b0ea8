import Dispatch
import OpenCombineShim
import Testing
import Lifeline
import LifelineAnalysis
import LifelineLog

extension RecordingTests {
    /// Pipelines already subscribed when recording starts: their calls are recorded, their
    /// objects are declared as joined mid-stream, and no rule claims a violation the missing
    /// handshake would have to prove.
    ///
    /// Combine installs the hook's taps at subscribe time, so automatic mode sees a pipeline
    /// that was subscribed while a hook was enabled: here, during an earlier recording.
    @Suite struct JoinedMidStreamTests {
        final class SearchModel {
            let query = PassthroughSubject<String, Never>()
            var results: [String] = []
            var cancellables = Set<AnyCancellable>()

            init() {
                query.map { $0.uppercased() }.sink { [weak self] in self?.results.append($0) }.store(in: &cancellables)
            }
        }

        @Test func aSinkSubscribedBeforeStartIsRecordedAsJoinedAndDiagnosedClean() throws {
            var earlier: SearchModel?
            let tracker = TrackingSubscriber(initialDemand: .max(1), returnedDemand: { _ in .max(1) })
            let counter = PassthroughSubject<Int, Never>()
            _ = try Lifeline.record {
                earlier = SearchModel()
                counter.subscribe(tracker)
            }
            let model = try #require(earlier)
            let trace = try Lifeline.record {
                model.query.send("swift")
                model.query.send("combine")
                counter.send(1)
                counter.send(2)
                tracker.request(.max(1))
                counter.send(3)
                tracker.cancel()
                model.query.send(completion: .finished)
            }
            #expect(model.results == ["SWIFT", "COMBINE"])
            let sink = try #require(trace.objects.values.first { $0.shortTypeName == "Sink" })
            #expect(sink.joinedMidStream)
            let values = trace.events.filter { event in
                if event.phase == .begin, case .value(sink.id, _, _) = event.kind { return true }
                return false
            }
            #expect(values.count == 2)
            let trackerObject = try #require(trace.objects.values.first { $0.typeName.hasSuffix("TrackingSubscriber") })
            #expect(trackerObject.joinedMidStream)
            // The tracker's subscription is first seen when the tracker asks it for more.
            let requested = trace.events.compactMap { event -> TraceObjectID? in
                if case .request(let subscription, _) = event.kind { return subscription }
                return nil
            }
            #expect(requested.allSatisfy { trace.objects[$0]?.joinedMidStream == true })
            #expect(!requested.isEmpty)
            #expect(trace.objects.values.filter { !$0.joinedMidStream && $0.role != .object }.isEmpty)
            let findings = TraceAnalyzer().diagnose(trace)
            #expect(findings.map(\.code) == [], "\(findings.map(\.message))")
        }

        @Test func aPipelineSubscribedDuringTheRecordingIsNotJoined() throws {
            let trace = try Lifeline.record {
                let model = SearchModel()
                model.query.send("swift")
            }
            #expect(!trace.objects.values.contains { $0.joinedMidStream })
        }

        @Test func aPreparedProcessRecordsAPipelineSubscribedBeforeStart() throws {
            let withoutPreparation = SearchModel()
            Lifeline.prepare()
            defer { Lifeline.endPreparation() }
            let prepared = SearchModel()
            let trace = try Lifeline.record {
                withoutPreparation.query.send("unseen")
                prepared.query.send("seen")
            }
            #expect(withoutPreparation.results == ["UNSEEN"] && prepared.results == ["SEEN"])
            let sinks = trace.objects.values.filter { $0.shortTypeName == "Sink" }
            #expect(sinks.count == 1)
            #expect(sinks.allSatisfy { $0.joinedMidStream })
            let delivered = trace.events.filter { event in
                if event.phase == .begin, case .value(let subscriber, _, _) = event.kind { return sinks.first?.id == subscriber }
                return false
            }
            #expect(delivered.count == 1)
            #expect(TraceAnalyzer().diagnose(trace).isEmpty)
        }
    }
}
