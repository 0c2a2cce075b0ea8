/// The fields of one JSON line, with typed accessors whose errors name the line and field.
struct LineFields {
    let number: Int
    private let members: [(key: String, value: JSONValue)]
    /// Where these fields sit in the line, for error messages: empty at the top level,
    /// `nodes[2].` inside an array element.
    private let path: String

    init(_ bytes: UnsafeBufferPointer<UInt8>, number: Int) throws(TraceReadError) {
        let parsed: JSONValue
        do throws(JSONLineParser.Failure) {
            parsed = try JSONLineParser.parse(bytes)
        } catch {
            throw .malformedLine(line: number, reason: "invalid JSON: \(error.reason) at byte \(error.offset + 1)")
        }
        guard case .object(let members) = parsed else {
            throw .malformedLine(line: number, reason: "a JSON value that is not an object")
        }
        self.init(members: members, number: number, path: "")
    }

    private init(members: [(key: String, value: JSONValue)], number: Int, path: String) {
        self.members = members
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
        switch self[key] {
        case nil, .null?: return false
        default: return true
        }
    }

    func string(_ key: String) throws(TraceReadError) -> String {
        guard let value = self[key] else { throw missing(key) }
        guard case .string(let string) = value else { throw wrongType(key, "a string") }
        return string
    }

    func optionalString(_ key: String) throws(TraceReadError) -> String? {
        has(key) ? try string(key) : nil
    }

    func integer(_ key: String) throws(TraceReadError) -> Int {
        guard let value = self[key] else { throw missing(key) }
        switch value {
        case .unsigned(let number) where number <= UInt64(Int.max): return Int(number)
        case .negative(let number): return Int(number)
        default: throw wrongType(key, "an integer")
        }
    }

    func unsigned(_ key: String) throws(TraceReadError) -> UInt64 {
        guard let value = self[key] else { throw missing(key) }
        guard case .unsigned(let number) = value else { throw wrongType(key, "a non-negative integer") }
        return number
    }

    func boolean(_ key: String) throws(TraceReadError) -> Bool {
        guard let value = self[key] else { throw missing(key) }
        guard case .bool(let flag) = value else { throw wrongType(key, "true or false") }
        return flag
    }

    func demand(_ key: String) throws(TraceReadError) -> TraceDemand {
        guard let value = self[key] else { throw missing(key) }
        switch value {
        case .string("unlimited"): return .unlimited
        case .unsigned(let count) where count <= UInt64(Int.max): return .max(Int(count))
        default: throw wrongType(key, "a count from 0 to \(Int.max) or \"unlimited\"")
        }
    }

    func object(_ key: String) throws(TraceReadError) -> LineFields {
        guard let value = self[key] else { throw missing(key) }
        guard case .object(let nested) = value else { throw wrongType(key, "an object") }
        return LineFields(members: nested, number: number, path: "\(path)\(key).")
    }

    func optionalObject(_ key: String) throws(TraceReadError) -> LineFields? {
        has(key) ? try object(key) : nil
    }

    /// The JSON objects in the array at `key`.
    func objects(_ key: String) throws(TraceReadError) -> [LineFields] {
        guard let value = self[key] else { throw missing(key) }
        guard case .array(let array) = value else { throw wrongType(key, "an array") }
        var result: [LineFields] = []
        result.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            guard case .object(let nested) = element else { throw wrongType(key, "an array of objects") }
            result.append(LineFields(members: nested, number: number, path: "\(path)\(key)[\(index)]."))
        }
        return result
    }

    func id(_ key: String) throws(TraceReadError) -> TraceObjectID {
        TraceObjectID(try unsigned(key))
    }

    /// The value at `key`: the last one when a key repeats, as most JSON readers do.
    private subscript(key: String) -> JSONValue? {
        members.last(where: { $0.key == key })?.value
    }

    private func missing(_ key: String) -> TraceReadError {
        .badField(line: number, field: path + key, reason: "is missing")
    }

    private func wrongType(_ key: String, _ expected: String) -> TraceReadError {
        .badField(line: number, field: path + key, reason: "must be \(expected)")
    }
}
