/// Why a log could not be read. Each case names the line, counted from 1.
public enum TraceReadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadable(path: String, reason: String)
    /// The file holds nothing.
    case empty
    /// The first line is not a Lifeline header.
    case notALifelineLog(reason: String)
    /// The log was written in a format version this build does not read. `supported` is the
    /// newest version it reads; it reads every version from 1 up to that.
    case unsupportedVersion(found: Int, supported: Int)
    /// A line is not valid JSON, or not a JSON object.
    case malformedLine(line: Int, reason: String)
    /// A line lacks a field, or a field has the wrong type.
    case badField(line: Int, field: String, reason: String)
    /// Two events carry the same sequence number.
    case duplicateSequence(line: Int, seq: UInt64)
    /// An object is declared a second time, with another type, role, label or source.
    case conflictingDeclaration(line: Int, what: String, firstLine: Int)
    /// The log has a second end record: a log ends once.
    case repeatedEndRecord(line: Int, firstLine: Int)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .empty:
            return "the log is empty: it has no header line"
        case .notALifelineLog(let reason):
            return "line 1: not a Lifeline log (\(reason))"
        case .unsupportedVersion(let found, let supported):
            return "line 1: log format version \(found) is not supported (this build reads versions 1 to \(supported))"
        case .malformedLine(let line, let reason):
            return "line \(line): not a JSON object (\(reason))"
        case .badField(let line, let field, let reason):
            return "line \(line): field '\(field)' \(reason)"
        case .duplicateSequence(let line, let seq):
            return "line \(line): sequence number \(seq) appears twice"
        case .conflictingDeclaration(let line, let what, let firstLine):
            return "line \(line): \(what) is declared again, differently from line \(firstLine)"
        case .repeatedEndRecord(let line, let firstLine):
            return "line \(line): a second end record (the first is on line \(firstLine)); a log has one"
        }
    }
}
