import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Glibc)
private let systemWrite = Glibc.write
#else
private let systemWrite = Darwin.write
#endif

/// Writes what a command produced to a path named on the command line, the way a demanding
/// user expects of `-o`:
///
/// - a regular file (or a new one) is replaced at once, never left half-written: the bytes go
///   to a temporary file beside it, which is then renamed over it, keeping the file's mode;
/// - a symbolic link is followed: the file it leads to is replaced, and the link stays;
/// - a character device (`/dev/null`, a terminal), a FIFO, `-` and the descriptors of the
///   running process (`/dev/stdout`, `/dev/fd/3`) are written to directly, never replaced.
///
/// A path that cannot be written is an ``OutputFile/Failure`` that says why in words (it is a
/// directory, its folder does not exist, permission is denied, it is a file of the kernel's
/// `/proc` or `/sys`, the device is full), and so is the file a command reads its log from:
/// that log may be the only recording, and is never replaced by what was made from it.
public enum OutputFile {
    /// Why a path could not be written or a folder could not be made, in words.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Fails early, before any long work, when `path` cannot be written: it is a directory,
    /// or its folder does not exist or cannot be written to, or it is the file `input` names
    /// (the same file, by device and inode, whatever the paths say), which would be replaced.
    public static func checkWritable(_ path: String, readingFrom input: String? = nil) throws(Failure) {
        if let problem = problem(writing: path) {
            throw Failure(description: "cannot write \(path): \(problem)")
        }
        if let input, case .file(let file) = Destination(path), isSameFile(file, input) {
            throw Failure(description: "cannot write \(path): it is the log being read (\(input)), which writing would "
                + "replace, and it may be the only recording: name another file")
        }
    }

    /// Whether `first` and `second` name one existing file (symbolic links followed).
    private static func isSameFile(_ first: String, _ second: String) -> Bool {
        var one = stat(), other = stat()
        guard stat(first, &one) == 0, stat(second, &other) == 0 else { return false }
        return one.st_dev == other.st_dev && one.st_ino == other.st_ino
    }

    /// Writes `text` to `path` as UTF-8.
    public static func write(_ text: String, to path: String) throws(Failure) {
        try write(Data(text.utf8), to: path)
    }

    /// Writes `bytes` to `path`: replaced at once when it is a file, written directly when it
    /// is a device, a FIFO or standard output.
    public static func write(_ bytes: Data, to path: String) throws(Failure) {
        try write(to: path) { emit in bytes.withUnsafeBytes { emit($0) } }
    }

    /// Writes to `path` what `produce` hands its `emit` function, piece by piece, so that a
    /// document of hundreds of megabytes is never held whole: a file is still replaced at
    /// once, when `produce` returns, and keeps its old bytes when a write fails.
    public static func write(
        to path: String, streaming produce: (_ emit: (UnsafeRawBufferPointer) -> Void) -> Void
    ) throws(Failure) {
        if let problem = problem(writing: path) {
            throw Failure(description: "cannot write \(path): \(problem)")
        }
        // The first write that fails is the one reported; what follows it is not written.
        func emitting(to descriptor: Int32) -> Int32? {
            var failure: Int32?
            produce { piece in
                if failure == nil { failure = writeAll(piece, to: descriptor) }
            }
            return failure
        }
        let failure: Int32?
        switch Destination(path) {
        case .standardOutput:
            failure = emitting(to: STDOUT_FILENO)
        case .stream(let streamPath):
            let descriptor = open(streamPath, O_WRONLY | O_CLOEXEC)
            if descriptor < 0 {
                failure = errno
            } else {
                failure = emitting(to: descriptor)
                close(descriptor)
            }
        case .file(let filePath):
            failure = replace(filePath, writing: emitting)
        }
        if let failure {
            throw Failure(description: "cannot write \(path): \(Self.words(for: failure))")
        }
    }

    /// Creates the folder `path` and any missing parent, as `mkdir -p` does. A path that
    /// is a file, or a folder that cannot be created, is reported in words.
    public static func createFolder(_ path: String) throws(Failure) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            var status = stat()
            if stat(prefix, &status) == 0 {
                guard status.st_mode & S_IFMT == S_IFDIR else {
                    throw Failure(description: "cannot create the folder \(path): \(prefix) is a file, not a folder")
                }
                continue
            }
            guard mkdir(prefix, 0o777) == 0 || errno == EEXIST else {
                let code = errno
                let parent = (prefix as NSString).deletingLastPathComponent
                let reason = code == EACCES || code == EPERM
                    ? "permission denied"
                    : "\(parent.isEmpty ? "." : parent) takes no new folder (\(String(cString: strerror(code)).lowercased()))"
                throw Failure(description: "cannot create the folder \(path): \(reason)")
            }
        }
    }

    /// Where the bytes for a path go.
    private enum Destination {
        /// `-`: the command's standard output.
        case standardOutput
        /// A character device, a FIFO, or a descriptor of this process: written in place.
        case stream(String)
        /// A regular file, existing or not (symbolic links followed): replaced.
        case file(String)

        init(_ path: String) {
            if path == "-" {
                self = .standardOutput
                return
            }
            // `/dev/stdout` and `/dev/fd/N` name a descriptor this process already holds;
            // through /proc they lead to `pipe:[…]`, which is no path to rename onto.
            if path.hasPrefix("/dev/fd/") || path.hasPrefix("/proc/self/fd/")
                || ["/dev/stdout", "/dev/stderr", "/dev/tty"].contains(path) {
                self = .stream(path)
                return
            }
            let resolved = OutputFile.followingLinks(path)
            var status = stat()
            if stat(resolved, &status) == 0, [S_IFCHR, S_IFIFO].contains(status.st_mode & S_IFMT) {
                self = .stream(resolved)
            } else {
                self = .file(resolved)
            }
        }
    }

    /// Why `path` cannot be written, in words, or `nil` when it looks writable.
    private static func problem(writing path: String) -> String? {
        guard !path.isEmpty else { return "the path is empty" }
        switch Destination(path) {
        case .standardOutput:
            return nil
        case .stream(let stream):
            return access(stream, W_OK) == 0 ? nil : words(for: errno)
        case .file(let file):
            var status = stat()
            if stat(file, &status) == 0 {
                switch status.st_mode & S_IFMT {
                case S_IFREG: break
                case S_IFDIR: return "it is a directory: name a file to write"
                default: return "it is neither a file, a character device nor a FIFO"
                }
            }
            let folder = (file as NSString).deletingLastPathComponent
            let shownFolder = folder.isEmpty ? "." : folder
            if let kernelFiles = kernelFileSystem(holding: shownFolder) {
                return "it is in the kernel's \(kernelFiles) file system, whose files are not regular files: none can be "
                    + "replaced or made there"
            }
            var folderStatus = stat()
            guard stat(shownFolder, &folderStatus) == 0 else { return "the folder \(shownFolder) does not exist" }
            guard folderStatus.st_mode & S_IFMT == S_IFDIR else { return "\(shownFolder) is not a folder" }
            guard access(shownFolder, W_OK) == 0 else { return "the folder \(shownFolder) is not writable" }
            return nil
        }
    }

    /// The kernel's file system (`/proc`, `/sys`) that `folder` is on, or nil for any other: its
    /// files look regular, but take no new file beside them and no writes.
    private static func kernelFileSystem(holding folder: String) -> String? {
        var status = stat(), system = stat()
        guard stat(folder, &status) == 0, stat("/", &system) == 0 else { return nil }
        // Only where they are mounted: an empty /proc is a folder of the root file system.
        return ["/proc", "/sys"].first { root in
            var rootStatus = stat()
            return stat(root, &rootStatus) == 0 && rootStatus.st_dev == status.st_dev && rootStatus.st_dev != system.st_dev
        }
    }

    /// `path` with every symbolic link in its last component followed (a link to a link
    /// too), so that a link to a file still missing leads to where that file will be.
    static func followingLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else {
                return current
            }
            current = destination.hasPrefix("/")
                ? destination
                : ((current as NSString).deletingLastPathComponent as NSString).appendingPathComponent(destination)
        }
        return current
    }

    /// Writes to a temporary file beside `path` through `fill`, given its descriptor, then
    /// renames it onto `path`, so that `path` holds either the old bytes or all the new ones.
    /// An existing file keeps its mode. Returns the `errno` of a failure: the one `fill`
    /// returns, or one of finishing the file.
    private static func replace(_ path: String, writing fill: (Int32) -> Int32?) -> Int32? {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        var template = Array(((folder.isEmpty ? "." : folder) + "/.\(name).lifeline-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return errno }
        let temporary = String(cString: template)
        var existing = stat()
        let mode: mode_t
        if stat(path, &existing) == 0 {
            mode = existing.st_mode & 0o7777
        } else {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
        var failure = fill(descriptor)
        if failure == nil, fchmod(descriptor, mode) != 0 { failure = errno }
        if failure == nil, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == nil { failure = errno }
        if failure == nil, rename(temporary, path) != 0 { failure = errno }
        if failure != nil { unlink(temporary) }
        return failure
    }

    /// Writes all of `buffer` to `descriptor`. Returns the `errno` of a failure.
    private static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
        var offset = 0
        while offset < buffer.count {
            let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }

    /// A system error in words: `no space left on device`.
    static func words(for code: Int32) -> String {
        switch code {
        case EACCES, EPERM: return "permission denied"
        case EISDIR: return "it is a directory: name a file to write"
        case ENOENT: return "its folder does not exist"
        default: return String(cString: strerror(code)).lowercased()
        }
    }
}
