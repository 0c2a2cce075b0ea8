import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of a log named by a path, with the reason in words when there are none to read.
///
/// An input that never ends (`/dev/zero`, `/dev/urandom`, a pipe that keeps writing) is refused
/// as soon as it shows it is no log, never read until memory runs out: a run of zero bytes
/// longer than ``longestZeroRun`` is refused in any input, and an input that is not a regular
/// file must begin with a Lifeline header line within its first ``longestHeaderLine`` bytes, and
/// end within ``streamLimit``.
enum LogFile {
    /// The longest run of zero bytes a log can hold: far more than what a killed recording
    /// leaves unwritten (the file's growth ahead of its writers, at most a few MiB, and the
    /// unwritten rest of the lines and records in flight).
    static let longestZeroRun = 64 << 20
    /// How far into an input that is not a regular file its header line must have ended (a
    /// header takes a few hundred bytes).
    static let longestHeaderLine = 1 << 20
    /// The most an input that is not a regular file may hold: half the machine's memory (the
    /// reader holds the whole log), at least 1 GiB.
    static let streamLimit = max(Int(clamping: ProcessInfo.processInfo.physicalMemory / 2), 1 << 30)
    /// How much one `read` asks for, so that the checks above come promptly; shorter than
    /// ``longestZeroRun``.
    private static let pieceSize = 16 << 20

    /// Everything `path` holds: a regular file read whole, a pipe or character device read to
    /// its end.
    static func contents(of path: String) throws(TraceReadError) -> Data {
        var status = stat()
        guard stat(path, &status) == 0 else { throw unreadable(path, errno) }
        switch status.st_mode & S_IFMT {
        case S_IFREG, S_IFIFO, S_IFCHR: break
        case S_IFDIR: throw .unreadable(path: path, reason: "it is a directory, not a log file")
        default: throw .unreadable(path: path, reason: "it is not a file (a socket or a block device), so not a log file")
        }
        let isRegular = status.st_mode & S_IFMT == S_IFREG
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw unreadable(path, errno) }
        defer { close(descriptor) }
        // Read straight into the buffer the trace is parsed from, sized by the file when it has
        // a size: no second copy through a small buffer. A pipe's grows as it fills.
        var bytes = Data(count: max(Int(clamping: status.st_size), 0) + 1)
        var filled = 0
        var zeroRun = 0
        var headerChecked = isRegular
        while true {
            if filled == bytes.count { bytes.count = max(2 * bytes.count, 1 << 16) }
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, min($0.count - filled, pieceSize)) }
            if count == 0 {
                bytes.count = filled
                return bytes
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw unreadable(path, errno)
            }
            let piece = filled..<(filled + count)
            filled += count
            let failure = bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> TraceReadError? in
                let read = raw.bindMemory(to: UInt8.self)
                let runs = zeroRuns(in: UnsafeBufferPointer(rebasing: read[piece]), after: zeroRun)
                zeroRun = runs.atEnd
                if max(runs.atStart, runs.atEnd) > longestZeroRun {
                    return .unreadable(path: path, reason: "it holds more than \(longestZeroRun >> 20) MiB of zero bytes in a row, "
                        + "more than any log leaves unwritten: it is not a log (an endless input such as /dev/zero?)")
                }
                do throws(TraceReadError) {
                    if !headerChecked { headerChecked = try checkHeader(UnsafeBufferPointer(rebasing: read[..<filled])) }
                } catch {
                    return error
                }
                return nil
            }
            if let failure { throw failure }
            if !isRegular && filled > streamLimit {
                throw .unreadable(path: path, reason: "it is not a regular file and gave more than \(streamLimit >> 20) MiB "
                    + "(half this machine's memory) without ending: an endless input is not a log")
            }
        }
    }

    /// The runs of zero bytes at the start and at the end of `piece`, counting the `earlier`
    /// zero bytes just before it: the only runs that can grow past ``longestZeroRun``, since a
    /// piece is shorter than that.
    private static func zeroRuns(in piece: UnsafeBufferPointer<UInt8>, after earlier: Int) -> (atStart: Int, atEnd: Int) {
        guard let first = piece.firstIndex(where: { $0 != 0 }) else {
            return (earlier + piece.count, earlier + piece.count)
        }
        var end = piece.count
        while piece[end - 1] == 0 { end -= 1 }
        return (earlier + first, piece.count - end)
    }

    /// Checks the first line of an input that is not a regular file once it has arrived, as the
    /// reader will: false while it has not, and an error when it is no Lifeline header or has
    /// not ended within ``longestHeaderLine`` bytes.
    private static func checkHeader(_ start: UnsafeBufferPointer<UInt8>) throws(TraceReadError) -> Bool {
        let newline = TraceReader.lineEnd(in: start, from: 0)
        guard newline < start.count else {
            guard start.count <= longestHeaderLine else {
                throw .notALifelineLog(reason: "its first \(longestHeaderLine >> 20) MiB hold no line break, and a log begins with a header line")
            }
            return false
        }
        try TraceReader.checkEncoding(start)
        _ = try TraceReader.readHeader(UnsafeBufferPointer(rebasing: start[..<newline]))
        return true
    }

    /// The error for a failed system call on `path`, in words.
    private static func unreadable(_ path: String, _ code: Int32) -> TraceReadError {
        switch code {
        case ENOENT: return .unreadable(path: path, reason: "no such file")
        case EACCES, EPERM: return .unreadable(path: path, reason: "permission denied")
        case EISDIR: return .unreadable(path: path, reason: "it is a directory, not a log file")
        case ENOTDIR: return .unreadable(path: path, reason: "a part of the path is not a directory")
        default: return .unreadable(path: path, reason: String(cString: strerror(code)).lowercased())
        }
    }
}
