import Foundation
import LifelineLog
import Testing

/// `hang` lines (log format versions 10 and 11): what the recorder writes when its watchdog,
/// `SIGQUIT` or a test's timeout sees the program hanging, read back in both formats, refused
/// in older versions, and exported as they are.
struct HangLineTests {
    static let hang = TraceHang(seq: 2, time: 7_000_000_000, idle: 5_000_000_000, cause: .watchdog)

    /// A log of one subscribe call, then `hang`'s line, with the header of `version`.
    static func log(version: Int) -> Data {
        var bytes = Data()
        let add = { (line: UnsafeRawBufferPointer) in bytes.append(contentsOf: line) }
        TraceLineEncoder.withLine(for: TraceHeader(
            version: version, processID: 1, processName: "hung", startedAt: "2026-11-27T08:00:00Z", clockOrigin: 0,
            valueDescriptionLimit: nil
        ), add)
        TraceLineEncoder.withLine(for: TraceThread(tid: 1, name: "main"), add)
        let subject = TraceObject(id: TraceObjectID(1), role: .publisher, typeName: "OpenCombine.PassthroughSubject<Swift.Int, Swift.Never>",
                                  shortTypeName: "PassthroughSubject", lifetimeTracked: true)
        let sink = TraceObject(id: TraceObjectID(2), role: .subscriber, typeName: "OpenCombine.Subscribers.Sink<Swift.Int, Swift.Never>",
                               shortTypeName: "Sink", lifetimeTracked: true)
        TraceLineEncoder.withLine(for: subject, add)
        TraceLineEncoder.withLine(for: sink, add)
        for (seq, phase) in [(UInt64(1), TraceEvent.Phase.begin), (2, .end)] {
            TraceLineEncoder.withLine(for: TraceEvent(
                seq: seq, time: seq * 1_000_000, thread: 1, queue: nil, phase: phase, kind: .subscribe(publisher: subject.id, subscriber: sink.id)
            ), add)
        }
        TraceLineEncoder.withLine(for: hang, add)
        return bytes
    }

    @Test(arguments: [TraceHeader.jsonLinesVersion, TraceHeader.currentBinaryVersion])
    func aHangLineReadsBackAsTheRecorderWroteIt(version: Int) throws {
        let data = Self.log(version: version)
        #expect(String(decoding: data, as: UTF8.self).hasSuffix(
            "\n{\"kind\":\"hang\",\"at\":2,\"t\":7000000000,\"idle\":5000000000,\"cause\":\"watchdog\"}\n"
        ))
        let trace = try TraceReader.read(data)
        #expect(trace.hangs == [Self.hang])
        #expect(trace.damage == [.notClosed])
    }

    @Test(arguments: TraceHang.Cause.allCases)
    func everyCauseReadsBack(cause: TraceHang.Cause) throws {
        let text = String(decoding: Self.log(version: TraceHeader.jsonLinesVersion), as: UTF8.self)
            .replacingOccurrences(of: "\"cause\":\"watchdog\"", with: "\"cause\":\"\(cause.rawValue)\"")
        #expect(try TraceReader.read(Data(text.utf8)).hangs.map(\.cause) == [cause])
    }

    /// Before version 10 a hang line is no line a log may hold: a reader of those versions
    /// refuses it, which is why the version changed.
    @Test(arguments: [TraceHeader.typedJSONLinesVersion, TraceHeader.typedBinaryVersion, 5])
    func aHangLineInAnOlderLogIsAnUnknownKind(version: Int) {
        #expect(throws: TraceReadError.badField(line: 7, field: "kind", reason: "has the unknown value \"hang\"")) {
            try TraceReader.read(Self.log(version: version))
        }
    }

    @Test func aHangLineWithoutItsFieldsIsAnErrorNamingTheField() {
        let text = String(decoding: Self.log(version: TraceHeader.jsonLinesVersion), as: UTF8.self)
        #expect(throws: TraceReadError.self) {
            try TraceReader.read(Data(text.replacingOccurrences(of: "\"cause\":\"watchdog\"", with: "\"cause\":\"boredom\"").utf8))
        }
        #expect(throws: TraceReadError.self) {
            try TraceReader.read(Data(text.replacingOccurrences(of: "\"idle\":5000000000,", with: "").utf8))
        }
    }

    /// A binary-format log's hang line is a JSON line like its snapshots: exported as it is, under
    /// the version 10 header.
    @Test func aBinaryLogsHangLineIsExportedAsItIs() throws {
        let exported = try TraceExporter.jsonLines(of: Self.log(version: TraceHeader.currentBinaryVersion))
        let text = String(decoding: exported, as: UTF8.self)
        #expect(text.hasPrefix("{\"format\":\"lifeline-trace\",\"version\":\(TraceHeader.jsonLinesVersion),"))
        #expect(try TraceReader.read(exported).hangs == [Self.hang])
    }
}
