import Foundation
import Testing
@testable import LifelineLog

/// ``FlatLine`` first tries each key as the one that followed the previous key in an earlier
/// line, by comparing bytes, and otherwise scans and hashes it: whatever it expects, and
/// whether the expectation holds or fails at any member, it reads every line as a reader that
/// has seen no line before reads it.
@Suite struct FlatLineKeyOrderTests {
    enum Outcome: Equatable {
        /// Not a flat line: left to ``LineFields``.
        case rejected
        /// Flat, but not an event or object line as the quick reading reads it.
        case notRead
        case event(TraceEvent)
        case object(TraceObject)
    }

    func read(_ line: [UInt8], with flat: inout FlatLine) -> Outcome {
        var interner = TextInterner()
        return line.withUnsafeBufferPointer { buffer -> Outcome in
            guard flat.scan(buffer) else { return .rejected }
            if flat.has(.seq) { return TraceBuilder.event(flat, interner: &interner).map(Outcome.event) ?? .notRead }
            guard flat.string(.kind, is: "object") else { return .notRead }
            return TraceBuilder.object(flat, interner: &interner).map(Outcome.object) ?? .notRead
        }
    }

    /// `line` read by a fresh reader, which has no key to expect.
    func readFresh(_ line: [UInt8]) -> Outcome {
        var flat = FlatLine()
        return read(line, with: &flat)
    }

    /// The lines the recorder writes, each kind once or more: what a reader learns to expect.
    func recorderLines() -> [[UInt8]] {
        SampleLog().data().split(separator: UInt8(ascii: "\n")).map(Array.init)
    }

    /// Lines that agree with the recorder's layout up to some member and then differ from it.
    static let bentLines = [
        // Keys in another order, or missing, or repeated, or unknown.
        #"{"t":5,"seq":1,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#,
        #"{"seq":1,"t":5,"tid":7,"kind":"cancel","phase":"begin","subscription":3}"#,
        #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel"}"#,
        #"{"seq":1,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#,
        #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3,"subscription":4}"#,
        #"{"seq":1,"t":5,"tid":7,"extra":"x","phase":"begin","kind":"cancel","subscription":3}"#,
        #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"value","subscriber":2,"value":"1","demand":1}"#,
        #"{"kind":"object","role":"subscriber","id":2,"type":"OpenCombine.Subscribers.Sink<Swift.Int, Swift.Never>","short":"Sink","lifetime":true}"#,
        #"{"kind":"object","id":2,"type":"OpenCombine.Subscribers.Sink<Swift.Int, Swift.Never>","short":"Sink","lifetime":true}"#,
        #"{"kind":"object","id":2,"role":"subscriber","type":"OpenCombine.Subscribers.Sink<Swift.Int, Swift.Never>","lifetime":true}"#,
        #"{"kind":"object","id":2,"role":"subscriber","type":"Sink<Int>","short":"Sink","site":3,"lifetime":true,"unknown":[1]}"#,
        // Keys that are a prefix of the expected one, or longer, or spelt with an escape, or
        // followed by whitespace.
        #"{"seq":1,"t":5,"ti":7,"phase":"begin","kind":"cancel","subscription":3}"#,
        #"{"seq":1,"t":5,"tidx":7,"phase":"begin","kind":"cancel","subscription":3}"#,
        #"{"seq":1,"t":5,"tid":7,"phase":"begin","kin":"cancel","subscription":3}"#,
        #"{"seq":1,"t":5,"tid":7,"phase":"begin","ki\u006ed":"cancel","subscription":3}"#,
        #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind" :"cancel","subscription":3}"#,
        #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind": "cancel","subscription": 3}"#,
        #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscriptions":3}"#,
        #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","Subscription":3}"#,
        #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription"3}"#,
        #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":}"#,
        #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription"}"#,
        // Values: escapes, text beyond ASCII, numbers beyond 64 bits, wrong types.
        #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"value","subscriber":2,"value":"caf\u00e9 \"q\""}"#,
        #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"value","subscriber":2,"value":"café ☕︎ 𝄞"}"#,
        #"{"seq":1,"t":5,"tid":7,"phase":"instant","kind":"mark","label":"a\tb"}"#,
        #"{"seq":18446744073709551615,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#,
        #"{"seq":18446744073709551616,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#,
        #"{"seq":1,"t":123456789012345678901234567890,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#,
        #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"request","subscription":3,"demand":9223372036854775808}"#,
        #"{"seq":1,"t":5.5,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#,
        #"{"seq":"1","t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#,
        #"{"kind":"object","id":2,"role":"subscriber","type":"Sink<Ünïcödé>","short":"Sink","lifetime":"yes"}"#,
        #"{"kind":"object","id":2,"role":"subscriber","type":"Sink<\"Int\">","short":"Sink","lifetime":true}"#,
        // Short lines, where fewer than sixteen bytes follow a key.
        #"{"seq":1}"#,
        #"{"kind":"x"}"#,
        #"{}"#,
        #"{"seq""#,
    ]

    /// Every line of the recorder, the fixtures and the bent list, read after every line of
    /// the recorder (so that the reader expects that line's keys) and read twice in a row,
    /// gives what a fresh reader gives.
    @Test func readsEveryLineAsAFreshReaderDoesWhateverItExpects() throws {
        let primers = recorderLines() + Self.bentLines.map { Array($0.utf8) }
        let lines = try FlatLineTests().recordedLines() + primers
        var quicklyRead = 0
        for line in lines {
            let fresh = readFresh(line)
            if case .event = fresh { quicklyRead += 1 }
            if case .object = fresh { quicklyRead += 1 }
            for primer in primers {
                var flat = FlatLine()
                _ = read(primer, with: &flat)
                #expect(read(line, with: &flat) == fresh, "\(String(decoding: line, as: UTF8.self)) after \(String(decoding: primer, as: UTF8.self))")
            }
            var flat = FlatLine()
            _ = read(line, with: &flat)
            #expect(read(line, with: &flat) == fresh, "\(String(decoding: line, as: UTF8.self)) read twice")
        }
        #expect(quicklyRead > 100)
    }

    /// A bent line after the recorder's own lines fails with the error ``LineFields`` gives
    /// for it: the key order the reader learnt changes no message.
    @Test func aBadLineAfterTheRecordersLinesGivesLineFieldsError() throws {
        let recorded = SampleLog().data(closed: false)
        let lineCount = recorded.split(separator: UInt8(ascii: "\n")).count
        let bad = [
            #"{"seq":100,"t":5,"tid":7,"phase":"begin","kind":"cancel"}"#,
            #"{"seq":100,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":"3"}"#,
            #"{"seq":100,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#,
            #"{"seq":100,"t":5,"tid":7,"phase":"begin","kind":"request","subscription":3,"demand":18446744073709551616}"#,
            #"{"kind":"object","id":4,"role":"subscriber","type":"Sink<Int>","lifetime":true}"#,
            #"{"kind":"object","id":4,"role":"boss","type":"Sink<Int>","short":"Sink","lifetime":true}"#,
            #"{"kind":"object","id":4,"role":"subscriber","type":"Sink<Int>","short":"Sink","lifetime":"true"}"#,
        ]
        for line in bad {
            let expected = Array(line.utf8).withUnsafeBufferPointer { buffer -> String in
                do {
                    var builder = TraceBuilder()
                    try builder.add(try LineFields(buffer, number: lineCount + 1))
                    return "no error"
                } catch {
                    return "\(error)"
                }
            }
            #expect(expected != "no error", "\(line)")
            var log = recorded
            log.append(contentsOf: Array((line + "\n").utf8))
            log.append(contentsOf: Array(#"{"seq":101,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#.utf8) + [UInt8(ascii: "\n")])
            do {
                _ = try TraceReader.read(log)
                Issue.record("\(line) was read")
            } catch {
                #expect("\(error)" == expected, "\(line)")
            }
        }
    }
}
