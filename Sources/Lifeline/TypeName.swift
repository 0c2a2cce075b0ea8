/// A runtime type's name as the log records it: the full name, with anything that changes
/// from run to run removed, and a short name for people.
struct TypeName {
    let full: String
    let short: String

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
    /// the module, private-context markers and Combine's namespaces are dropped.
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
        components.removeAll { $0 == "(private)" }
        if components.count > 1, ["Publishers", "Subscribers", "Subscriptions"].contains(components[0]) {
            components.removeFirst()
        }
        return components.isEmpty ? full : components.joined(separator: ".")
    }
}
