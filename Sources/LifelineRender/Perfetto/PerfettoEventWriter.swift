/// Writes Chrome trace events as JSON by hand: one event per line, keys in a fixed order,
/// so the bytes depend only on the events.
struct PerfettoEventWriter {
    /// An argument value.
    enum Value {
        case text(String)
        case number(UInt64)

        var json: String {
            switch self {
            case .text(let text): return JSONText.quoted(text)
            case .number(let number): return "\(number)"
            }
        }
    }

    private let processID: UInt64
    private var lines: [String] = []

    init(processID: UInt64) {
        self.processID = processID
    }

    /// A metadata event (`ph: "M"`), such as `thread_name`.
    mutating func metadata(_ name: String, thread: UInt64, args: [String: Value]) {
        lines.append("{\"ph\":\"M\",\"name\":\(JSONText.quoted(name)),\"pid\":\(processID),\"tid\":\(thread),\"args\":\(Self.object(args))}")
    }

    /// An event at `time` (nanoseconds) on `thread`.
    ///
    /// - Parameters:
    ///   - phase: `B`/`E` slice begin and end, `b`/`e` async slice, `s`/`f` flow, `i` instant.
    ///   - id: The async slice's or flow's id.
    ///   - scope: An instant's scope: `t` thread, `g` global.
    ///   - bindToEnclosing: For a flow end, bind to the slice that encloses it (`bp: "e"`).
    mutating func event(
        phase: String, name: String, category: String, time: UInt64, thread: UInt64, id: UInt64? = nil,
        scope: String? = nil, bindToEnclosing: Bool = false, args: [String: Value] = [:]
    ) {
        var line = "{\"ph\":\"\(phase)\",\"name\":\(JSONText.quoted(name)),\"cat\":\(JSONText.quoted(category))"
        line += ",\"pid\":\(processID),\"tid\":\(thread),\"ts\":\(Self.microseconds(time))"
        if let id { line += ",\"id\":\(id)" }
        if let scope { line += ",\"s\":\"\(scope)\"" }
        if bindToEnclosing { line += ",\"bp\":\"e\"" }
        if !args.isEmpty { line += ",\"args\":\(Self.object(args))" }
        lines.append(line + "}")
    }

    /// The whole JSON object.
    var document: String {
        "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n" + lines.joined(separator: ",\n") + "\n]}\n"
    }

    private static func object(_ args: [String: Value]) -> String {
        "{" + args.keys.sorted().map { "\(JSONText.quoted($0)):\(args[$0]!.json)" }.joined(separator: ",") + "}"
    }

    /// Nanoseconds as the microseconds the format counts in, exactly: `1500` is `1.500`.
    static func microseconds(_ nanoseconds: UInt64) -> String {
        let fraction = String(nanoseconds % 1_000)
        return "\(nanoseconds / 1_000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
