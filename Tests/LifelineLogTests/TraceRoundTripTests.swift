import Foundation
import Testing
@testable import LifelineLog

@Suite struct TraceRoundTripTests {
    @Test func everyKindSurvivesAWriteAndARead() throws {
        let log = SampleLog()
        let trace = try TraceReader.read(log.data())
        #expect(trace.header == log.header)
        #expect(trace.events == log.events)
        #expect(trace.objects == Dictionary(uniqueKeysWithValues: log.objects.map { ($0.id, $0) }))
        #expect(trace.threads[7]?.name == "main")
        #expect(trace.queues[1]?.label == "com.example.work")
        #expect(trace.damage.isEmpty)
    }

    @Test func anObjectJoinedMidStreamSaysSoAndOthersDoNot() throws {
        var log = SampleLog()
        let joined = log.objects[1]
        log.objects[1] = TraceObject(
            id: joined.id, role: joined.role, typeName: joined.typeName, shortTypeName: joined.shortTypeName,
            lifetimeTracked: joined.lifetimeTracked, joinedMidStream: true
        )
        let data = log.data()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.components(separatedBy: "\"joined\":true").count == 2)
        #expect(!text.contains("\"joined\":false"))
        let trace = try TraceReader.read(data)
        #expect(trace.objects[joined.id]?.joinedMidStream == true)
        #expect(trace.objects.values.filter(\.joinedMidStream).map(\.id) == [joined.id])
    }

    @Test func hostileStringsStayOnOneLineAndComeBackIntact() throws {
        let hostile = "quote\" back\\slash <tag>&amp; new\nline\r tab\t bell\u{07} nul\u{0} del\u{7F} 🧵 "
            + String(repeating: "x", count: 20_000)
        var log = SampleLog()
        log.objects[0] = TraceObject(
            id: log.objects[0].id, role: .publisher, typeName: hostile, shortTypeName: hostile,
            label: hostile, sourceLocation: TraceSourceLocation(fileAndLine: hostile), lifetimeTracked: false
        )
        log.events.append(TraceEvent(seq: 100, time: 100, thread: 7, queue: nil, phase: .instant, kind: .mark(label: hostile)))
        let data = log.data()
        let lineCount = data.split(separator: UInt8(ascii: "\n")).count
        #expect(lineCount == 1 + log.declarationCount + log.events.count + 1)
        let trace = try TraceReader.read(data)
        #expect(trace.objects[log.objects[0].id]?.label == hostile)
        #expect(trace.events.last?.kind == .mark(label: hostile))
    }

    @Test func eventsAreOrderedBySequenceNumberNotByFilePosition() throws {
        var log = SampleLog()
        log.events.reverse()
        let trace = try TraceReader.read(log.data())
        #expect(trace.events.map(\.seq) == trace.events.map(\.seq).sorted())
    }
}
