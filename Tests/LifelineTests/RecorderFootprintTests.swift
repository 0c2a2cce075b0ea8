@testable import Lifeline
import Foundation
import LifelineLog
import OpenCombineShim
import Testing

extension RecordingTests {
    /// What a recording keeps grows with what lives, not with what it has seen: a long run of
    /// short pipelines leaves the recorder's tables as small as a short one, and its log names
    /// each type once.
    @Suite struct RecorderFootprintTests {
        /// A type whose name is long, as real generic pipelines' are.
        struct Nested<Inner> {}
        typealias LongNamed = Nested<Nested<Nested<Nested<Nested<Nested<Nested<Nested<Int>>>>>>>>

        /// Subscribes a short pipeline and cancels it, `count` times, in the running recording.
        func cycle(_ count: Int, operatorMode: Bool) {
            let subject = PassthroughSubject<Int, Never>()
            for _ in 0..<count {
                let cancellable = operatorMode ? subject.lifeline("x").sink { _ in } : subject.sink { _ in }
                cancellable.cancel()
            }
        }

        @Test(arguments: [false, true])
        func theRegistryAndTheCallSitesStayAsSmallAsWhatLives(operatorMode: Bool) throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("footprint-\(UUID().uuidString).log").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try Lifeline.start(writingTo: path, options: RecordingOptions(automatic: !operatorMode, snapshots: .none))
            let session = try #require(Lifeline.current)
            cycle(100, operatorMode: operatorMode)
            let entries = session.registry.entryCount, sites = session.callSites.rememberedObjectSites
            cycle(3_000, operatorMode: operatorMode)
            let entriesAfter = session.registry.entryCount, sitesAfter = session.callSites.rememberedObjectSites
            Lifeline.stop()
            // The objects of the last few cycles may wait for a sweep; the 3,000 cycles' do not stay.
            #expect(entriesAfter <= entries + 64, "the registry grew from \(entries) to \(entriesAfter) entries over 3,000 cycles")
            #expect(sitesAfter <= sites + 16, "the call sites of \(sitesAfter - sites) dead objects are still remembered")
        }

        @Test(arguments: TraceLogFormat.allCases)
        func aLogOfManyObjectsOfOneTypeNamesTheTypeOnce(format: TraceLogFormat) throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("types-\(UUID().uuidString).log").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            var kept: [AnyCancellable] = []
            let trace = try Lifeline.record(options: RecordingOptions(logFormat: format), keepingLogAt: path) {
                let subject = PassthroughSubject<LongNamed, Never>()
                for _ in 0..<200 { kept.append(subject.map { $0 }.sink { _ in }) }
                subject.send(LongNamed())
            }
            let sinkName = String(reflecting: Subscribers.Sink<LongNamed, Never>.self)
            let sinks = trace.objects.values.filter { $0.typeName == sinkName }
            #expect(sinks.count == 200)
            #expect(sinks.allSatisfy { $0.role == .subscriber && $0.lifetimeTracked && $0.shortTypeName == "Sink" })
            let log = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
            #expect(log.components(separatedBy: "\"type\":\"\(sinkName)\"").count - 1 == 1)
            #expect(trace.damage.isEmpty)
            withExtendedLifetime(kept) {}
        }

        /// A type line lost (a log edited, or damaged where a kill could not reach) leaves its
        /// objects in the trace, of unknown type, in the role their events give them.
        @Test func aRecordedLogWithoutATypeLineReadsWithAWarning() throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("lost-type-\(UUID().uuidString).log").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            _ = try Lifeline.record(options: RecordingOptions(logFormat: .jsonLines), keepingLogAt: path) {
                let subject = PassthroughSubject<Int, Never>()
                let sinks = (0..<3).map { _ in subject.sink { _ in } }
                subject.send(1)
                sinks.forEach { $0.cancel() }
            }
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
            let sinkType = try #require(lines.first { $0.hasPrefix("{\"kind\":\"type\"") && $0.contains("\"short\":\"Sink\"") })
            let number = try #require(sinkType.split(separator: ",")[1].split(separator: ":").last.flatMap { UInt64($0) })
            let whole = try TraceReader.read(Data((lines.joined(separator: "\n") + "\n").utf8))
            let trace = try TraceReader.read(Data((lines.filter { $0 != sinkType }.joined(separator: "\n") + "\n").utf8))
            #expect(trace.damage == [.undeclaredType(number, objects: 3)])
            #expect(trace.events == whole.events)
            let sinks = trace.objects.values.filter { $0.typeName == TraceObject.unknownTypeName }
            #expect(sinks.count == 3 && sinks.allSatisfy { $0.role == .subscriber })
        }
    }
}
