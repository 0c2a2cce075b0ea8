import Foundation

/// The fields of one JSON line, with typed accessors whose errors name the line and field.
struct LineFields {
    let number: Int
    private let fields: [String: Any]
    /// Where these fields sit in the line, for error messages: empty at the top level,
    /// `nodes[2].` inside an array element.
    private let path: String

    init(_ bytes: [UInt8], number: Int) throws(TraceReadError) {
        self.number = number
        self.path = ""
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        } catch {
            throw .malformedLine(line: number, reason: "invalid JSON")
        }
        guard let fields = parsed as? [String: Any] else {
            throw .malformedLine(line: number, reason: "a JSON value that is not an object")
        }
        self.fields = fields
    }

    private init(fields: [String: Any], number: Int, path: String) {
        self.fields = fields
        self.number = number
        self.path = path
    }

    /// `key` as error messages name it, with the path to these fields.
    func name(_ key: String) -> String {
        path + key
    }

    /// The value at `key`, which must be one of `Value`'s raw values.
    func choice<Value: RawRepresentable & CaseIterable>(_ key: String, of type: Value.Type) throws(TraceReadError) -> Value
    where Value.RawValue == String {
        let text = try string(key)
        guard let value = Value(rawValue: text) else {
            throw .badField(line: number, field: name(key), reason: "has the unknown value \"\(text)\"")
        }
        return value
    }

    func has(_ key: String) -> Bool {
        fields[key] != nil && !(fields[key] is NSNull)
    }

    func string(_ key: String) throws(TraceReadError) -> String {
        guard let value = fields[key] else { throw missing(key) }
        guard let string = value as? String else { throw wrongType(key, "a string") }
        return string
    }

    func optionalString(_ key: String) throws(TraceReadError) -> String? {
        has(key) ? try string(key) : nil
    }

    func integer(_ key: String) throws(TraceReadError) -> Int {
        guard let value = fields[key] else { throw missing(key) }
        guard !Self.isBoolean(value), let integer = value as? Int else { throw wrongType(key, "an integer") }
        return integer
    }

    func unsigned(_ key: String) throws(TraceReadError) -> UInt64 {
        guard let value = fields[key] else { throw missing(key) }
        if !Self.isBoolean(value) {
            if let integer = value as? Int, integer >= 0 { return UInt64(integer) }
            if let integer = value as? UInt64 { return integer }
        }
        throw wrongType(key, "a non-negative integer")
    }

    func boolean(_ key: String) throws(TraceReadError) -> Bool {
        guard let value = fields[key] else { throw missing(key) }
        guard Self.isBoolean(value), let flag = value as? Bool else { throw wrongType(key, "true or false") }
        return flag
    }

    func demand(_ key: String) throws(TraceReadError) -> TraceDemand {
        guard let value = fields[key] else { throw missing(key) }
        if let text = value as? String {
            guard text == "unlimited" else { throw wrongType(key, "a count or \"unlimited\"") }
            return .unlimited
        }
        return .max(try integer(key))
    }

    func object(_ key: String) throws(TraceReadError) -> LineFields {
        guard let value = fields[key] else { throw missing(key) }
        guard let nested = value as? [String: Any] else { throw wrongType(key, "an object") }
        return LineFields(fields: nested, number: number, path: "\(path)\(key).")
    }

    func optionalObject(_ key: String) throws(TraceReadError) -> LineFields? {
        has(key) ? try object(key) : nil
    }

    /// The JSON objects in the array at `key`.
    func objects(_ key: String) throws(TraceReadError) -> [LineFields] {
        guard let value = fields[key] else { throw missing(key) }
        guard let array = value as? [Any] else { throw wrongType(key, "an array") }
        var result: [LineFields] = []
        for (index, element) in array.enumerated() {
            guard let nested = element as? [String: Any] else { throw wrongType(key, "an array of objects") }
            result.append(LineFields(fields: nested, number: number, path: "\(path)\(key)[\(index)]."))
        }
        return result
    }

    func id(_ key: String) throws(TraceReadError) -> TraceObjectID {
        TraceObjectID(try unsigned(key))
    }

    /// JSONSerialization returns numbers and booleans alike as NSNumber; booleans are its
    /// CFBoolean subclass.
    private static func isBoolean(_ value: Any) -> Bool {
        type(of: value) == type(of: NSNumber(value: true))
    }

    private func missing(_ key: String) -> TraceReadError {
        .badField(line: number, field: path + key, reason: "is missing")
    }

    private func wrongType(_ key: String, _ expected: String) -> TraceReadError {
        .badField(line: number, field: path + key, reason: "must be \(expected)")
    }
}
