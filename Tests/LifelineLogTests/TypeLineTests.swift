import Foundation
import Testing
@testable import LifelineLog

/// Version 8 and 9 logs: a `type` line declares a type, role and lifetime tracking once, and
/// object lines name it by number; a lost type line costs the type, not the objects.
@Suite struct TypeLineTests {
    /// A name as long as real generic pipelines' are.
    static let longName = "OpenCombine.Publishers.Map<" + String(repeating: "App.Nested<", count: 200) + "Swift.Int"
        + String(repeating: ">", count: 200) + ", Swift.Int>.Inner<OpenCombine.Subscribers.Sink<Swift.Int, Swift.Never>>"

    static let sinkType = TraceObjectType(id: 1, typeName: longName, shortTypeName: "Map.Inner", role: .subscriber, lifetimeTracked: true)

    /// A log of `objects` objects of one type, each subscribed and deallocated, in `format`:
    /// a type line, then an object line naming it per object.
    static func log(objects: Int, format: TraceLogFormat, typeLine: Bool = true) -> Data {
        var bytes = Data()
        let add = { (line: UnsafeRawBufferPointer) in bytes.append(contentsOf: line) }
        let version = format == .binary ? TraceHeader.currentBinaryVersion : TraceHeader.jsonLinesVersion
        TraceLineEncoder.withLine(for: TraceHeader(
            version: version, processID: 1, processName: "typed", startedAt: "2026-11-27T08:00:00Z", clockOrigin: 0,
            valueDescriptionLimit: nil
        ), add)
        TraceLineEncoder.withLine(for: TraceThread(tid: 1, name: "main"), add)
        let subject = TraceObject(id: TraceObjectID(1), role: .publisher, typeName: "OpenCombine.PassthroughSubject<Swift.Int, Swift.Never>",
                                  shortTypeName: "PassthroughSubject", lifetimeTracked: true)
        TraceLineEncoder.withLine(for: subject, add)
        if typeLine { TraceLineEncoder.withLine(for: sinkType, add) }
        var seq: UInt64 = 0
        for index in 0..<objects {
            let id = TraceObjectID(UInt64(index + 2))
            let object = TraceObject(id: id, role: .subscriber, typeName: longName, shortTypeName: "Map.Inner", label: index == 0 ? "first" : nil,
                                     callSite: 3, lifetimeTracked: true)
            TraceLineEncoder.withLine(for: object, type: sinkType, add)
            for (phase, kind) in [(TraceEvent.Phase.begin, TraceEvent.Kind.subscribe(publisher: subject.id, subscriber: id)),
                                  (.end, .subscribe(publisher: subject.id, subscriber: id)),
                                  (.instant, .deallocation(object: id, evidence: .exact))] {
                seq += 1
                TraceLineEncoder.withLine(for: TraceEvent(seq: seq, time: seq, thread: 1, queue: nil, phase: phase, kind: kind), add)
            }
        }
        TraceLineEncoder.withEndLine(events: seq, dropped: 0, add)
        return bytes
    }

    static func occurrences(of text: String, in data: Data) -> Int {
        String(decoding: data, as: UTF8.self).components(separatedBy: text).count - 1
    }

    @Test(arguments: TraceLogFormat.allCases)
    func objectsOfOneTypeReadWithTheNameTheirTypeLineGives(format: TraceLogFormat) throws {
        let data = Self.log(objects: 1_000, format: format)
        #expect(Self.occurrences(of: Self.longName, in: data) == 1)
        let trace = try TraceReader.read(data)
        #expect(trace.damage.isEmpty)
        #expect(trace.objects.count == 1_001)
        for id in 2...1_001 {
            let object = try #require(trace.object(TraceObjectID(UInt64(id))))
            #expect(object.typeName == Self.longName && object.shortTypeName == "Map.Inner")
            #expect(object.role == .subscriber && object.lifetimeTracked && object.callSite == 3)
        }
        #expect(trace.object(TraceObjectID(2))?.label == "first")
    }

    /// Even an object of a `.lifeline` hop, whose label and place its type line holds.
    @Test func anObjectLineAfterItsTypesFirstTakesAtMost64Bytes() {
        let object = TraceObject(id: TraceObjectID(1_234_567), role: .subscriber, typeName: Self.longName, shortTypeName: "Map.Inner",
                                 label: "search results", sourceLocation: "App/SearchViewModel.swift:42", callSite: 12, lifetimeTracked: true)
        let length = TraceLineEncoder.withLine(for: object, type: TraceObjectType(of: object, id: 4_321)) { $0.count }
        #expect(length <= 64)
    }

    @Test func anObjectTakesItsHopFromItsTypeLineUnlessItsLineNamesOne() throws {
        let hop = TraceObject(id: TraceObjectID(1), role: .subscriber, typeName: "Sink", shortTypeName: "Sink", label: "search",
                              sourceLocation: "App/Search.swift:42", callSite: 2, lifetimeTracked: true)
        let type = TraceObjectType(of: hop, id: 1)
        var lines = [Data]()
        let add = { (line: UnsafeRawBufferPointer) in lines.append(Data(line)) }
        TraceLineEncoder.withLine(for: TraceHeader(processID: 1, processName: "hop", startedAt: "2026-11-27T08:00:00Z", clockOrigin: 0,
                                                   valueDescriptionLimit: nil), add)
        TraceLineEncoder.withLine(for: type, add)
        TraceLineEncoder.withLine(for: hop, type: type, add)
        lines.append(Data("{\"kind\":\"object\",\"id\":2,\"type\":1,\"label\":\"other\"}\n".utf8))
        #expect(String(decoding: lines[2], as: UTF8.self) == "{\"kind\":\"object\",\"id\":1,\"type\":1,\"site\":2}\n")
        let trace = try TraceReader.read(lines.reduce(Data(), +))
        #expect(trace.object(TraceObjectID(1)) == hop)
        let other = try #require(trace.object(TraceObjectID(2)))
        #expect(other.label == "other" && other.sourceLocation == nil && other.typeName == "Sink")
    }

    @Test(arguments: TraceLogFormat.allCases)
    func aLostTypeLineReadsAsAnUnknownTypeWithAWarning(format: TraceLogFormat) throws {
        let trace = try TraceReader.read(Self.log(objects: 3, format: format, typeLine: false))
        #expect(trace.damage == [.undeclaredType(1, objects: 3)])
        #expect(trace.events.count == 9)
        let object = try #require(trace.object(TraceObjectID(2)))
        #expect(object.typeName == TraceObject.unknownTypeName && object.shortTypeName == TraceObject.unknownTypeName)
        // The role the first event that names it gives it, and what its line kept.
        #expect(object.role == .subscriber && !object.lifetimeTracked)
        #expect(object.label == "first" && object.callSite == 3)
        #expect(TraceDamage.undeclaredType(1, objects: 3).description
            == "type 1 is used but never declared (its declaration was lost, as when a recording is killed while writing it): "
            + "3 objects name it; they are shown as objects of unknown type")
    }

    @Test func aTypeDeclaredAgainOtherwiseIsRefusedNamingBothLines() {
        var lines = String(decoding: Self.log(objects: 2, format: .jsonLines), as: UTF8.self).split(separator: "\n").map(String.init)
        let typeLine = lines.firstIndex { $0.hasPrefix("{\"kind\":\"type\"") }!
        lines.insert(lines[typeLine].replacingOccurrences(of: "\"short\":\"Map.Inner\"", with: "\"short\":\"Other\""), at: lines.count - 1)
        #expect(throws: TraceReadError.conflictingDeclaration(line: lines.count - 1, what: "type 1", firstLine: typeLine + 1)) {
            try TraceReader.read(Data(lines.joined(separator: "\n").utf8))
        }
    }

    @Test func aTypeNumberedZeroIsAnErrorNamingTheField() {
        let text = String(decoding: Self.log(objects: 1, format: .jsonLines), as: UTF8.self)
            .replacingOccurrences(of: "\"id\":2,\"type\":1", with: "\"id\":2,\"type\":0")
        #expect(throws: TraceReadError.badField(line: 5, field: "type", reason: "must be a positive integer")) {
            try TraceReader.read(Data(text.utf8))
        }
    }

    /// Before version 8 a type line is no line a log may hold, as before type lines were.
    @Test func aTypeLineInAVersion5LogIsAnUnknownKind() {
        let text = String(decoding: Self.log(objects: 1, format: .jsonLines), as: UTF8.self)
            .replacingOccurrences(of: "\"version\":\(TraceHeader.jsonLinesVersion)", with: "\"version\":\(TraceHeader.untypedJSONLinesVersion)")
        #expect(throws: TraceReadError.badField(line: 4, field: "kind", reason: "has the unknown value \"type\"")) {
            try TraceReader.read(Data(text.utf8))
        }
    }

    /// A binary log (version 11) exports as JSON Lines (version 10), its type lines kept.
    @Test func aTypedBinaryLogExportsAsJSONLines() throws {
        let binary = Self.log(objects: 5, format: .binary)
        let exported = try TraceExporter.jsonLines(of: binary)
        #expect(String(decoding: exported, as: UTF8.self).hasPrefix("{\"format\":\"lifeline-trace\",\"version\":\(TraceHeader.jsonLinesVersion),"))
        #expect(try TraceReader.read(exported).objects == TraceReader.read(binary).objects)
        #expect(exported == Self.log(objects: 5, format: .jsonLines))
    }
}
