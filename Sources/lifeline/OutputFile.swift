import ArgumentParser
import Foundation

/// Writes what a command produced to a file named on the command line. A file that cannot be
/// written is reported on standard error and ends the command with exit status 2.
enum OutputFile {
    /// Fails early, before any long work, when `path`'s folder does not exist or cannot be
    /// written to.
    static func checkWritable(_ path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            StandardError.write("error: cannot write \(path): the folder \(folder) does not exist")
            throw ExitCode(2)
        }
        guard FileManager.default.isWritableFile(atPath: folder) else {
            StandardError.write("error: cannot write \(path): the folder \(folder) is not writable")
            throw ExitCode(2)
        }
    }

    /// Writes `text` to `path` as UTF-8, replacing the file at once (never half-written).
    static func write(_ text: String, to path: String) throws {
        try write(Data(text.utf8), to: path)
    }

    /// Writes `bytes` to `path`, replacing the file at once (never half-written).
    static func write(_ bytes: Data, to path: String) throws {
        do {
            try bytes.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            StandardError.write("error: cannot write \(path): \(error.localizedDescription)")
            throw ExitCode(2)
        }
    }
}
