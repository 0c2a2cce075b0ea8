import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of a log named by a path, with the reason in words when there are none to read.
enum LogFile {
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
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw unreadable(path, errno) }
        defer { close(descriptor) }
        // Read straight into the buffer the trace is parsed from, sized by the file when it has
        // a size: no second copy through a small buffer. A pipe's grows as it fills.
        var bytes = Data(count: max(Int(clamping: status.st_size), 0) + 1)
        var filled = 0
        while true {
            if filled == bytes.count { bytes.count = max(2 * bytes.count, 1 << 16) }
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count == 0 {
                bytes.count = filled
                return bytes
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw unreadable(path, errno)
            }
            filled += count
        }
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
