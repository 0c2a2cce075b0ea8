import Foundation

/// A tmpfs of a few hundred KiB, mounted for one test, to run out of room on. Mounting needs
/// root (or CAP_SYS_ADMIN); ``canMount`` says whether this machine lets the tests mount.
struct SmallFileSystem {
    /// The mounted folder.
    let folder: URL

    /// Whether mounting a tmpfs works here, tried once.
    static let canMount: Bool = {
        guard let probe = try? SmallFileSystem(kibibytes: 64) else { return false }
        probe.unmount()
        return true
    }()

    struct MountFailed: Error, CustomStringConvertible {
        let description: String
    }

    /// Mounts a tmpfs of `kibibytes` on a new temporary folder.
    init(kibibytes: Int) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-small-fs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let status = Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kibibytes)k", "tmpfs", folder.path])
        guard status == 0 else {
            try? FileManager.default.removeItem(at: folder)
            throw MountFailed(description: "mount -t tmpfs exited with \(status)")
        }
    }

    /// Unmounts the file system and removes its folder.
    func unmount() {
        _ = Self.run("/bin/umount", [folder.path])
        try? FileManager.default.removeItem(at: folder)
    }

    private static func run(_ executable: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
