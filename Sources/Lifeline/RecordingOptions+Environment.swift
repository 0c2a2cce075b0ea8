import Foundation
import LifelineLog

extension RecordingOptions {
    /// Reads options from text such as `snapshots,values=80`: the grammar of the
    /// `LIFELINE_OPTIONS` environment variable that `Lifeline.recordingIfRequested(_:)` reads.
    ///
    /// The text is a comma-separated list of items, each changing one option from its
    /// default; spaces around items are ignored, and a later item overrides an earlier one.
    ///
    /// | item | option |
    /// |---|---|
    /// | `automatic` | record every pipeline (the default) |
    /// | `operator-only` | record only `.lifeline(_:)` hops (`automatic: false`) |
    /// | `snapshots=none`, `snapshots=stop`, `snapshots=every-call` | ``snapshots``; `stop` is the default |
    /// | `snapshots` | `snapshots=every-call` |
    /// | `values=N` | record value descriptions cut to N characters (N ≥ 1) |
    /// | `capacity=N`, `capacity=NK`, `NM`, `NG` | ``logCapacity`` in bytes, KiB, MiB or GiB |
    /// | `format=binary`, `format=jsonl` | ``logFormat``: binary event records (the default) or JSON lines |
    /// | `watchdog=5s`, `watchdog=500ms`, `watchdog=2m` | ``watchdog``: a hang record after that long without an event while pipelines are open |
    ///
    /// ```sh
    /// LIFELINE_TRACE=trace.jsonl LIFELINE_OPTIONS=snapshots,values=80 swift run MyApp
    /// ```
    ///
    /// - Parameter text: The option text; empty text gives the defaults.
    /// - Throws: ``LifelineError/invalidOptions(_:)`` naming the first item it can't read,
    ///   or an option the result can't honour.
    public init(parsing text: String) throws(LifelineError) {
        self.init()
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let item = item.trimmingCharacters(in: .whitespaces)
            guard !item.isEmpty else { continue }
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let (name, value) = (parts[0].trimmingCharacters(in: .whitespaces), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : nil)
            switch (name, value) {
            case ("automatic", nil): automatic = true
            case ("operator-only", nil): automatic = false
            case ("snapshots", nil), ("snapshots", "every-call"): snapshots = .everyCall
            case ("snapshots", "stop"): snapshots = .atStop
            case ("snapshots", "none"): snapshots = .none
            case ("values", let number?):
                guard let limit = Int(number) else { throw Self.unreadable(item, "N must be a whole number") }
                valueDescriptionLimit = limit
            case ("capacity", let size?):
                guard let bytes = Self.bytes(size) else {
                    throw Self.unreadable(item, "give a number of bytes, optionally followed by K, M or G")
                }
                logCapacity = bytes
            case ("format", let name?):
                guard let format = TraceLogFormat(rawValue: name) else { throw Self.unreadable(item, "format is binary or jsonl") }
                logFormat = format
            case ("watchdog", let text?):
                guard let period = Self.duration(text) else {
                    throw Self.unreadable(item, "give a whole number followed by ms, s or m")
                }
                watchdog = period
            case ("snapshots", _?):
                throw Self.unreadable(item, "snapshots is none, stop or every-call")
            default:
                throw Self.unreadable(item, "the options are \(Self.grammar)")
            }
        }
        try validate()
    }

    /// The items `init(parsing:)` reads, for messages.
    static let grammar = "automatic, operator-only, snapshots[=none|stop|every-call], values=N, capacity=N[K|M|G], "
        + "format=binary|jsonl, watchdog=N(ms|s|m)"

    private static func unreadable(_ item: String, _ hint: String) -> LifelineError {
        .invalidOptions("can't read \"\(item)\": \(hint)")
    }

    /// `5s`, `500ms`, `2m`: a whole number of milliseconds, seconds or minutes.
    private static func duration(_ text: String) -> Duration? {
        let units: [(suffix: String, milliseconds: Int)] = [("ms", 1), ("s", 1000), ("m", 60_000)]
        guard let unit = units.first(where: { text.hasSuffix($0.suffix) }),
              let number = Int(text.dropLast(unit.suffix.count)), number >= 0 else { return nil }
        let (milliseconds, overflow) = number.multipliedReportingOverflow(by: unit.milliseconds)
        return overflow ? nil : .milliseconds(milliseconds)
    }

    /// `64K` is 65,536: K, M and G are binary units.
    private static func bytes(_ text: String) -> Int? {
        let units: [Character: Int] = ["K": 10, "M": 20, "G": 30]
        guard let last = text.last else { return nil }
        let shift = units[Character(last.uppercased())]
        guard let number = Int(shift == nil ? Substring(text) : text.dropLast()), number >= 0 else { return nil }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: 1 << (shift ?? 0))
        return overflow ? nil : bytes
    }
}
