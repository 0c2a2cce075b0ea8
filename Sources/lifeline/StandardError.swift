import Foundation

/// Messages for people, kept out of standard output so that output can be piped.
enum StandardError {
    static func write(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
