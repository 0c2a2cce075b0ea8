import Foundation
import Testing
@testable import LifelineLog

/// The reader's JSON parser accepts what the JSON grammar accepts, with the values
/// JSONSerialization gives, and refuses the rest.
@Suite struct JSONLineParserTests {
    func parse(_ text: String) throws -> JSONValue {
        try parse(Array(text.utf8))
    }

    func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer in try JSONLineParser.parse(buffer) }
    }

    /// The value as Foundation objects, to compare with JSONSerialization.
    func foundation(_ value: JSONValue) -> NSObject {
        switch value {
        case .null: return NSNull()
        case .bool(let flag): return NSNumber(value: flag)
        case .unsigned(let number): return NSNumber(value: number)
        case .negative(let number): return NSNumber(value: number)
        case .fraction(let number): return NSNumber(value: number)
        case .string(let text): return NSString(string: text)
        case .array(let elements): return NSArray(array: elements.map(foundation))
        case .object(let members):
            let dictionary = NSMutableDictionary()
            for (key, member) in members { dictionary[key] = foundation(member) }
            return dictionary
        }
    }

    static let valid = [
        #"{}"#, #"[]"#, #"  {"a" : 1 , "b":[true,false,null]}  "#, #"{"seq":18446744073709551615}"#,
        #"{"n":-9223372036854775808}"#, #"{"n":-0}"#, #"{"n":1.5e3}"#, #"{"n":-2.25E-2}"#, #"{"n":0.5}"#,
        #"{"s":"tab\tquote\"slash\/back\\"}"#, #"{"s":"\u00e9\u20AC\ud83d\ude00"}"#, #"{"s":"é€😀"}"#,
        #"{"s":"\b\f\n\r"}"#, #"{"nested":{"deeper":[{"x":[1,[2,[3]]]}]}}"#, #""just a string""#, "7",
    ]

    @Test(arguments: valid)
    func acceptsWhatJSONSerializationAccepts(_ text: String) throws {
        let ours = foundation(try parse(text))
        let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as! NSObject
        #expect(ours == theirs)
    }

    static let invalid = [
        #"{"a":1,}"#, #"{"a" 1}"#, #"{a:1}"#, #"[1,]"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":.5}"#, #"{"a":1e}"#,
        #"{"a":-}"#, #"{"a":tru}"#, #"{"a":nul}"#, #"{"a":"unterminated}"#, #"{"a":"\x"}"#, #"{"a":"\u12G4"}"#,
        #"{"a":"\ud83d"}"#, #"{"a":"\ude00"}"#, #"{"a":1} trailing"#, "{\"a\":\"raw\tcontrol\"}", "", "   ",
        #"{"a":+1}"#, #"{"a":NaN}"#, #"{"a":Infinity}"#, #"{"a":1e999}"#,
    ]

    @Test(arguments: invalid)
    func refusesWhatJSONSerializationRefuses(_ text: String) {
        #expect(throws: JSONLineParser.Failure.self) { try parse(text) }
    }

    @Test func refusesInvalidUTF8InStrings() {
        #expect(throws: JSONLineParser.Failure.self) { try parse(Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)) }
        #expect(throws: JSONLineParser.Failure.self) { try parse(Array(#"{"a":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8)) }
    }

    @Test func stopsAtTheMaximumDepthWithoutExhaustingTheStack() throws {
        let depth = JSONLineParser.maximumDepth
        _ = try parse(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        let hostile = String(repeating: "[", count: 100_000)
        #expect(throws: JSONLineParser.Failure.self) { try parse(hostile) }
    }

    @Test func namesWhereAndWhyItStopped() {
        let bytes = Array(#"{"seq": 3, oops"#.utf8)
        do throws(JSONLineParser.Failure) {
            _ = try bytes.withUnsafeBufferPointer { buffer throws(JSONLineParser.Failure) in try JSONLineParser.parse(buffer) }
            Issue.record("parsed a broken line")
        } catch {
            #expect(error.reason == "expected a key")
            #expect(error.offset == 11)
        }
    }

    @Test func keepsIntegersExactBeyondDoublePrecision() throws {
        let value = try parse(#"{"origin":18446744073709551615,"n":-9007199254740993}"#)
        guard case .object(let members) = value else { Issue.record("not an object"); return }
        #expect(members[0].value.isUnsigned(UInt64.max))
        guard case .negative(let negative) = members[1].value else { Issue.record("not a negative integer"); return }
        #expect(negative == -9_007_199_254_740_993)
    }
}

private extension JSONValue {
    func isUnsigned(_ expected: UInt64) -> Bool {
        if case .unsigned(let number) = self { return number == expected }
        return false
    }
}
