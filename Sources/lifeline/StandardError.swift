import Foundation
import LifelineLog

/// Messages for people, kept out of standard output so that output can be piped.
enum StandardError {
    /// Writes `message` as one line. Messages quote paths, labels and names from the log, so
    /// the message is escaped (``TraceText/escaped(_:)``): none of them can add a line or send
    /// the terminal a control sequence.
    static func write(_ message: String) {
        FileHandle.standardError.write(Data((TraceText.escaped(message) + "\n").utf8))
    }
}
