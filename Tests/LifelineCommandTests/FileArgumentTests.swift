import Foundation
import Testing

/// What `lifeline` does with the paths it is given: a log that is no file, an output that is a
/// directory, a device, a FIFO or a symbolic link. Every problem is said in words with exit
/// status 2; a device or a FIFO is written to, never replaced; a link is followed.
@Suite struct FileArgumentTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("LifelineRenderTests/Fixtures/retain-cycle.jsonl").path

    @Test(arguments: [["diagnose"], ["timeline"], ["render", "--format", "svg"], ["graph"], ["why", "1"]])
    func aDirectoryAsTheLogIsNamedAsOne(_ command: [String]) throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = [command[0], folder.path] + command.dropFirst()
        let run = try LifelineExecutable.run(arguments)
        #expect(run.status == 2)
        #expect(run.standardError == "error: cannot read \(folder.path): it is a directory, not a log file\n", "\(run.standardError)")
    }

    @Test func devNullAsTheLogIsAnEmptyLog() throws {
        let run = try LifelineExecutable.run(["diagnose", "/dev/null"])
        #expect(run.status == 2)
        #expect(run.standardError == "error: /dev/null: the log is empty: it has no header line\n", "\(run.standardError)")
    }

    @Test(arguments: [["graph"], ["render", "--format", "svg"], ["render", "--format", "graph-png"]])
    func aDirectoryAsTheOutputIsNamedAsOne(_ command: [String]) throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try LifelineExecutable.run([command[0], Self.fixture] + command.dropFirst() + ["-o", folder.path])
        #expect(run.status == 2)
        #expect(run.standardError == "error: cannot write \(folder.path): it is a directory: name a file to write\n", "\(run.standardError)")
    }

    @Test func aGalleryFolderThatCannotBeMadeIsSaidInWords() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let underFile = try LifelineExecutable.run(["samples", "--output", file.appendingPathComponent("gallery").path])
        #expect(underFile.status == 2)
        #expect(underFile.standardError == "error: cannot create the folder \(file.path)/gallery: \(file.path) is a file, not a folder\n")
        let proc = try LifelineExecutable.run(["samples", "--output", "/proc/lifeline-gallery"])
        #expect(proc.status == 2)
        #expect(proc.standardError.hasPrefix("error: cannot create the folder /proc/lifeline-gallery: /proc takes no new folder"),
                "\(proc.standardError)")
        #expect(!proc.standardError.contains("Domain"))
    }

    @Test func aSymbolicLinkIsFollowedNotReplaced() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("graph.dot"), link = folder.appendingPathComponent("link.dot")
        try Data("old".utf8).write(to: target)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "graph.dot")
        let run = try LifelineExecutable.run(["graph", Self.fixture, "-o", link.path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "graph.dot", "the link was replaced")
        #expect(String(decoding: try Data(contentsOf: target), as: UTF8.self).hasPrefix("digraph"))
    }

    @Test func aFIFOIsWrittenToNotReplaced() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Opened for reading first, without waiting for a writer, so that the command's write
        // lands in the pipe and a command that replaced the FIFO instead fails the test
        // rather than hanging it.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let run = try LifelineExecutable.run(["graph", Self.fixture, "-o", fifo])
        #expect(run.status == 0, "\(run.standardError)")
        var received = [UInt8](repeating: 0, count: 1 << 16)
        let count = read(reader, &received, received.count)
        #expect(count > 0 && received.starts(with: Array("digraph".utf8)), "nothing arrived through the FIFO")
        var status = stat()
        #expect(stat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the FIFO was replaced")
    }

    /// The tests run as root, where a rename over /dev/null would succeed: it must still be
    /// the null device afterwards.
    @Test func devNullStaysTheNullDevice() throws {
        let run = try LifelineExecutable.run(["render", Self.fixture, "--format", "graph-png", "-o", "/dev/null"])
        #expect(run.status == 0, "\(run.standardError)")
        var status = stat()
        #expect(stat("/dev/null", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR, "/dev/null is no longer a device")
    }

    @Test func aFullDeviceIsAnErrorInWords() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let run = try LifelineExecutable.run(["graph", Self.fixture, "-o", "/dev/full"])
        #expect(run.status == 2)
        #expect(run.standardError == "error: cannot write /dev/full: no space left on device\n", "\(run.standardError)")
    }

    @Test func aReplacedFileKeepsItsMode() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("graph.dot")
        try Data("old".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file.path)
        let run = try LifelineExecutable.run(["graph", Self.fixture, "-o", file.path])
        #expect(run.status == 0, "\(run.standardError)")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["graph.dot"], "a temporary file was left")
    }

    /// `-o` naming the log being read would replace what may be the only recording, whatever
    /// path names it: the same path, a symbolic link, a hard link or a relative path.
    @Test(arguments: [["graph"], ["render", "--format", "svg"], ["render", "--format", "mermaid"], ["export"]])
    func theLogBeingReadIsNeverTheOutput(_ command: [String]) throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("trace.lifeline")
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: log.path)
        let original = try Data(contentsOf: log)
        let link = folder.appendingPathComponent("link.lifeline"), hard = folder.appendingPathComponent("hard.lifeline")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "trace.lifeline")
        try FileManager.default.linkItem(atPath: log.path, toPath: hard.path)
        for output in [log.path, link.path, hard.path, folder.path + "/./trace.lifeline"] {
            let run = try LifelineExecutable.run([command[0], log.path] + command.dropFirst() + ["-o", output])
            #expect(run.status == 2, "-o \(output)")
            #expect(run.standardError == "error: cannot write \(output): it is the log being read (\(log.path)), which writing "
                + "would replace, and it may be the only recording: name another file\n", "\(run.standardError)")
            #expect(try Data(contentsOf: log) == original, "-o \(output) changed the log")
        }
    }

    /// A file of the kernel's /proc looks like a regular file whose folder exists: the reason
    /// it cannot be written is that it is no regular file, not a missing folder.
    @Test func aKernelFileAsTheOutputSaysWhyItCannotBeWritten() throws {
        let run = try LifelineExecutable.run(["graph", Self.fixture, "-o", "/proc/version"])
        #expect(run.status == 2)
        #expect(run.standardError == "error: cannot write /proc/version: it is in the kernel's /proc file system, whose "
            + "files are not regular files: none can be replaced or made there\n", "\(run.standardError)")
    }

    /// An endless input is refused at once, never read until memory runs out.
    @Test(arguments: ["/dev/zero", "/dev/urandom"]) func anEndlessInputIsRefusedPromptly(_ device: String) throws {
        let started = Date()
        let run = try LifelineExecutable.run(["diagnose", device], timeout: 60)
        #expect(!run.timedOut, "\(device) was still being read after 60 s")
        #expect(run.status == 2)
        #expect(run.standardError.hasPrefix("error: \(device): line 1: not a Lifeline log ("), "\(run.standardError)")
        #expect(Date().timeIntervalSince(started) < 30)
    }

    /// A log followed by endless zero bytes (`cat trace.lifeline /dev/zero | lifeline …`) is
    /// refused once the run of zeros is longer than any a log holds.
    @Test func aLogFollowedByEndlessZerosIsRefused() throws {
        // `timeout` kills the whole pipeline, should it still run after 60 s.
        let run = try LifelineExecutable.run(
            ["-s", "KILL", "60", "/bin/sh", "-c", "cat \"$0\" /dev/zero | \"$1\" diagnose /dev/stdin", Self.fixture,
             LifelineExecutable.url.path],
            executable: URL(fileURLWithPath: "/usr/bin/timeout")
        )
        #expect(run.status == 2, "\(run.status): the zeros were still being read after 60 s, or the log was read")
        #expect(run.standardError.hasPrefix("error: cannot read /dev/stdin: it holds more than 64 MiB of zero bytes in a row"),
                "\(run.standardError)")
    }

    /// The default log is binary: no command's help calls the log it reads `.jsonl`.
    @Test(arguments: ["diagnose", "pipelines", "why", "snapshots", "timeline", "render", "graph", "export"])
    func theHelpNamesTheLogFormatsItReads(_ command: String) throws {
        let run = try LifelineExecutable.run([command, "--help"])
        #expect(run.status == 0)
        #expect(!run.standardOutputText.contains(".jsonl"), "\(run.standardOutputText)")
        let words = run.standardOutputText.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("binary or JSON Lines"), "\(run.standardOutputText)")
    }
}
