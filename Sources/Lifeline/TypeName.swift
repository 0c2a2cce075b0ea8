import Synchronization

/// A runtime type's name as the log records it: the full name, with anything that changes
/// from run to run removed, and a short name for people.
struct TypeName: Sendable {
    let full: String
    let short: String

    /// The names worked out so far, by type: type metadata lives as long as the process.
    private static let known = Mutex<[ObjectIdentifier: TypeName]>([:])

    /// The name of `type`, worked out once per type (it takes string searches that cost
    /// tens of microseconds, and every subscribe declares objects of the same few types).
    static func of(_ type: Any.Type) -> TypeName {
        let key = ObjectIdentifier(type)
        if let name = known.withLock({ $0[key] }) { return name }
        let name = TypeName(type)
        known.withLock { $0[key] = name }
        return name
    }

    init(_ type: Any.Type) {
        full = Self.removingAddresses(from: String(reflecting: type))
        short = Self.shortened(full)
    }

    /// Private types print as `Module.(unknown context at $55d0c3e2a1b0).Name`; the address
    /// changes with every run, so it becomes `(private)`.
    static func removingAddresses(from name: String) -> String {
        var result = ""
        var rest = Substring(name)
        while let range = rest.range(of: "(unknown context at $") {
            result += rest[..<range.lowerBound]
            rest = rest[range.upperBound...]
            guard let close = rest.firstIndex(of: ")") else { break }
            result += "(private)"
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// `OpenCombine.Publishers.Map<…>.Inner<…>` becomes `Map.Inner`: generic arguments,
    /// the module, private-context markers and Combine's namespaces are dropped, and so is the
    /// `OCombine` namespace OpenCombine puts its extensions of other modules' types in, so that
    /// `Result<…>.OCombine.Publisher` reads `Result.Publisher`, as in the code that made it.
    static func shortened(_ full: String) -> String {
        var depth = 0
        var plain = ""
        for character in full {
            switch character {
            case "<": depth += 1
            case ">": depth -= 1
            default: if depth == 0 { plain.append(character) }
            }
        }
        if plain.hasPrefix("(extension in "), let colon = plain.firstIndex(of: ":") {
            plain = String(plain[plain.index(after: colon)...])
        }
        var components = plain.split(separator: ".").map(String.init)
        if components.count > 1 { components.removeFirst() }
        components.removeAll { $0 == "(private)" || $0 == "OCombine" }
        if components.count > 1, ["Publishers", "Subscribers", "Subscriptions"].contains(components[0]) {
            components.removeFirst()
        }
        return components.isEmpty ? full : components.joined(separator: ".")
    }
}
