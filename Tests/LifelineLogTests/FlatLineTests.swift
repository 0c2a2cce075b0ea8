import Foundation
import Testing
@testable import LifelineLog

/// The quick reading of event and object lines (``FlatLine``) gives what ``LineFields`` gives,
/// or leaves the line to it: on the recorder's own lines, on the fixtures, and on lines bent
/// every way the JSON grammar allows or forbids.
@Suite struct FlatLineTests {
    enum Reading: Equatable {
        case event(TraceEvent)
        case object(TraceObject)
    }

    /// The line read the quick way, or `nil` when it leaves the line to ``LineFields``.
    func quick(_ line: [UInt8]) -> Reading? {
        var flat = FlatLine()
        var interner = TextInterner()
        return line.withUnsafeBufferPointer { buffer -> Reading? in
            guard flat.scan(buffer) else { return nil }
            if flat.has(.seq) { return TraceBuilder.event(flat, interner: &interner).map(Reading.event) }
            guard flat.string(.kind, is: "object") else { return nil }
            return TraceBuilder.object(flat, interner: &interner).map(Reading.object)
        }
    }

    /// The line read through ``LineFields``, or `nil` when it is not a valid event or object line.
    func thorough(_ line: [UInt8]) -> Reading? {
        line.withUnsafeBufferPointer { buffer -> Reading? in
            guard let fields = try? LineFields(buffer, number: 1) else { return nil }
            if fields.has("seq") { return (try? TraceBuilder.event(fields)).map(Reading.event) }
            guard (try? fields.string("kind")) == "object" else { return nil }
            return (try? TraceBuilder.object(fields)).map(Reading.object)
        }
    }

    /// Checks that the quick reading of `line`, when it gives one, is the thorough one; returns
    /// whether it gave one.
    @discardableResult
    func expectAgreement(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        expectAgreement(Array(text.utf8), sourceLocation: sourceLocation)
    }

    @discardableResult
    func expectAgreement(_ line: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard let quick = quick(line) else { return false }
        #expect(quick == thorough(line), "\(String(decoding: line, as: UTF8.self))", sourceLocation: sourceLocation)
        return true
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The event and object lines of the sample log and of every fixture and fuzz reproducer.
    func recordedLines() throws -> [[UInt8]] {
        var logs = [SampleLog().data()]
        for folder in ["Tests/LifelineRenderTests/Fixtures", "Fuzz/Corpus"] {
            let directory = Self.repositoryRoot.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() where name.hasSuffix(".jsonl") {
                logs.append(try Data(contentsOf: directory.appendingPathComponent(name)))
            }
        }
        return logs.flatMap { $0.split(separator: UInt8(ascii: "\n")).map(Array.init) }
            .filter { line in line.starts(with: Array("{\"seq\"".utf8)) || line.starts(with: Array("{\"kind\":\"object\"".utf8)) }
    }

    @Test func readsTheRecordersLinesAsLineFieldsDoes() throws {
        let lines = try recordedLines()
        #expect(lines.count > 100)
        let quicklyRead = lines.filter { expectAgreement($0) }.count
        // Lines with escapes (hostile labels) are left to LineFields; nearly all others are read quickly.
        #expect(quicklyRead * 10 >= lines.count * 9, "\(quicklyRead) of \(lines.count) read quickly")
    }

    @Test func readsEveryKindOfEvent() {
        let lines = [
            #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"subscribe","publisher":1,"subscriber":2}"#,
            #"{"seq":2,"t":6,"tid":7,"queue":1,"phase":"end","kind":"receive_subscription","subscriber":2,"subscription":3}"#,
            #"{"seq":3,"t":7,"tid":7,"phase":"begin","kind":"request","subscription":3,"demand":"unlimited","site":4}"#,
            #"{"seq":4,"t":8,"tid":7,"phase":"end","kind":"value","subscriber":2,"demand":0,"value":"café"}"#,
            #"{"seq":5,"t":9,"tid":7,"phase":"begin","kind":"value","subscriber":2,"value":null}"#,
            #"{"seq":6,"t":9,"tid":7,"phase":"begin","kind":"completion","subscriber":2,"completion":"failure","error":"URLError(-1001) timed out"}"#,
            #"{"seq":7,"t":9,"tid":7,"phase":"end","kind":"completion","subscriber":2,"completion":"finished"}"#,
            #"{"seq":8,"t":9,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#,
            #"{"seq":9,"t":9,"tid":7,"phase":"instant","kind":"deallocation","object":3,"evidence":"exact"}"#,
            #"{"seq":10,"t":9,"tid":7,"phase":"instant","kind":"deallocation","object":2,"evidence":"observed","alive_at":4}"#,
            #"{"seq":11,"t":18446744073709551615,"tid":7,"phase":"instant","kind":"mark","label":"a mark longer than fifteen bytes"}"#,
            #"{"kind":"object","id":2,"role":"subscriber","type":"OpenCombine.Subscribers.Sink<Swift.Int, Swift.Never>","short":"Sink","label":"ui","source":"App/View.swift:12","function":"View.body","site":3,"lifetime":true,"joined":true}"#,
            #"{"kind":"object","id":3,"role":"publisher","type":"Just<Int>","short":"Just","lifetime":false}"#,
            #" { "seq" : 1 , "t" : 5 ,"tid":7,"phase":"begin","kind":"cancel","subscription":3 } "#,
            #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3,"subscription":4}"#,
            #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3,"unknown":"x","other":12}"#,
        ]
        for line in lines {
            #expect(expectAgreement(line), "\(line) was not read quickly")
        }
    }

    /// Numbers of every length, at the start, the end and the middle of a line: each one as
    /// ``LineFields`` reads it, and one beyond 64 bits, a fraction or an exponent left to it.
    @Test func readsNumbersOfEveryLengthAnywhereInALine() {
        var numbers: [String] = []
        for length in 1...19 {
            var digits = String(length % 9 + 1)
            for index in 1..<length { digits += String((index * 7 + length) % 10) }
            numbers.append(digits)
        }
        numbers += ["18446744073709551615", "9999999999999999", "10000000000000000", "99999999", "100000000", "12345678"]
        for number in numbers {
            let atStart = #"{"seq":\#(number),"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#
            let atEnd = #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":\#(number)}"#
            let beforeSpace = #"{"seq":1,"t":\#(number) ,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#
            for line in [atStart, atEnd, beforeSpace] {
                #expect(expectAgreement(line), "\(line) was not read quickly")
            }
        }
        for bad in ["18446744073709551616", "123456789012345678901", "12345678.5", "123456789e3", "1234567812345678.0", "12E1"] {
            let line = #"{"seq":\#(bad),"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3,"other":"padding the line"}"#
            #expect(quick(Array(line.utf8)) == nil, "\(line) was read quickly")
        }
    }

    /// Lines whose reading needs what only ``LineFields`` knows: the quick reading leaves them to it.
    @Test func leavesEverythingElseToLineFields() {
        let lines = [
            #"{"seq":01,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#,
            #"{"seq":1.0,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#,
            #"{"seq":1e2,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#,
            #"{"seq":18446744073709551616,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#,
            #"{"seq":-1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#,
            #"{"seq":"1","t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#,
            #"{"seq":1,"t":5,"tid":7,"phase":"Begin","kind":"cancel","subscription":3}"#,
            #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3} x"#,
            #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3,}"#,
            #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3"#,
            #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3,"extra":{"a":1}}"#,
            #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3,"extra":[1]}"#,
            #"{"seq":1,"t":5,"tid":7,"queue":4294967296,"phase":"begin","kind":"cancel","subscription":3}"#,
            #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"request","subscription":3,"demand":-1}"#,
            #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"request","subscription":3,"demand":"all"}"#,
            #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"value","subscriber":3,"value":"caf\u00e9"}"#,
            #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"value","subscriber":3,"value":12}"#,
            #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3,"site":"x"}"#,
            #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":true}"#,
            #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":nul}"#,
            #"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"wave","subscription":3}"#,
            #"{"seq":null,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3}"#,
            #"{"kind":"object","id":3,"role":"boss","type":"Just<Int>","short":"Just","lifetime":false}"#,
            #"{"kind":"object","id":3,"role":"publisher","type":"Just<Int>","short":"Just","lifetime":0}"#,
            #"{"kind":"object","id":3,"role":"publisher","type":"Just<Int>","short":"Just","lifetime":false,"joined":1}"#,
            #"{"kind":"thread","tid":7,"name":"main"}"#,
            "{\"seq\":1,\"t\":5,\"tid\":7,\"phase\":\"begin\",\"kind\":\"mark\",\"label\":\"a\tb\"}",
        ]
        for line in lines {
            #expect(quick(Array(line.utf8)) == nil, "\(line) was read quickly")
        }
        for bytes: [UInt8] in [[0xFF], [0xC3], [0xED, 0xA0, 0x80]] {
            let line = Array(#"{"seq":1,"t":5,"tid":7,"phase":"begin","kind":"cancel","subscription":3,"extra":""#.utf8) + bytes + Array(#""}"#.utf8)
            #expect(quick(line) == nil)
            let label = Array(#"{"seq":1,"t":5,"tid":7,"phase":"instant","kind":"mark","label":""#.utf8) + bytes + Array(#""}"#.utf8)
            #expect(quick(label) == nil)
        }
    }

    /// Every line changed one byte at a time, at every place, to every byte that matters to
    /// JSON: whatever the quick reading still reads, it reads as LineFields does.
    @Test func agreesOnEveryOneByteChange() {
        let originals = [
            #"{"seq":12,"t":50,"tid":7,"queue":1,"phase":"end","kind":"value","subscriber":2,"demand":10,"value":"ab"}"#,
            #"{"kind":"object","id":2,"role":"subscriber","type":"Sink<Int>","short":"Sink","label":"ui","site":3,"lifetime":true}"#,
            #"{"seq":10,"t":9,"tid":7,"phase":"instant","kind":"deallocation","object":2,"evidence":"observed","alive_at":4}"#,
        ]
        let replacements = Array(#"{}[]",:0123456789-+.eEtfnul\ "#.utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xFF]
        var agreed = 0
        for original in originals {
            let bytes = Array(original.utf8)
            for index in bytes.indices {
                for replacement in replacements where replacement != bytes[index] {
                    var changed = bytes
                    changed[index] = replacement
                    if expectAgreement(changed) { agreed += 1 }
                    changed.remove(at: index)
                    if expectAgreement(changed) { agreed += 1 }
                }
            }
        }
        #expect(agreed > 100)
    }
}

@Suite struct FlatLineSpecialByteTests {
    /// The eight-byte test agrees with the byte-by-byte one on every byte in every position.
    @Test func aSpecialByteIsFoundInAnyPositionOfAWord() {
        func special(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 }
        let filler = Array("abcdefgh".utf8)
        for position in 0..<8 {
            for byte in UInt8.min...UInt8.max {
                var bytes = filler
                bytes[position] = byte
                let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                #expect(FlatLine.hasSpecialByte(word) == special(byte), "byte \(byte) at \(position)")
            }
        }
        // Neighbours that borrow in a subtraction do not hide or invent one.
        for pair in [[0x21, 0x20], [0x20, 0x21], [0x01, 0x7F], [0x7F, 0x1F], [0x5B, 0x5D], [0x23, 0x21]] as [[UInt8]] {
            var bytes = filler
            bytes.replaceSubrange(3..<5, with: pair)
            let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            #expect(FlatLine.hasSpecialByte(word) == pair.contains(where: special))
        }
    }

    /// The lowest flagged byte is the first special one, whatever follows it: a string's end
    /// is found within the word.
    @Test func theFirstSpecialByteOfAWordIsFoundExactly() {
        func special(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 }
        let followers: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xE2, 0xFF]
        for position in 0..<8 {
            for byte in UInt8.min...UInt8.max {
                for follower in followers {
                    var bytes = Array("abcdefgh".utf8)
                    bytes[position] = byte
                    for later in (position + 1)..<8 { bytes[later] = follower }
                    let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                    let mask = FlatLine.specialBytes(word)
                    let expected = bytes.firstIndex(where: special)
                    #expect((mask == 0 ? nil : mask.trailingZeroBitCount / 8) == expected, "byte \(byte) at \(position), then \(follower)")
                }
            }
        }
    }
}
