import LifelineLog

extension TraceLifecycles {
    /// How a finding names an object: its short type, label and id, and the file and line where
    /// the program made its pipeline, as `Sink "ui" #7 (SearchViewModel.swift:24)`. (Reports
    /// head each subscription's findings with the function too.)
    func name(_ object: TraceObjectID) -> String {
        trace.object(object)?.placedName ?? "object \(object)"
    }

    /// How a finding names an optional object.
    func name(_ object: TraceObjectID?, otherwise: String) -> String {
        object.map(name) ?? otherwise
    }
}

extension TraceDemand {
    /// The demand as a count of values: `unlimited values`, `1 value`, `3 values`.
    var valuesPhrase: String {
        switch self {
        case .unlimited: return "unlimited values"
        case .max(1): return "1 value"
        case .max(let count): return "\(count) values"
        }
    }
}

extension TraceEvent.Completion {
    /// The completion as Swift spells it: `.finished`, `.failure(URLError(-1001))`.
    var swiftSpelling: String {
        switch self {
        case .finished: return ".finished"
        case .failure(let description): return ".failure(\(description))"
        }
    }
}
