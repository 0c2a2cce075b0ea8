/// A file the server offers.
struct FileEntry: Hashable, Sendable {
    let name: String
    let size: Int

    /// The size of a chunk of a large file.
    static let chunkSize = 1_000

    /// Whether the file is downloaded in chunks, in parallel.
    var isLarge: Bool { size > 4 * Self.chunkSize }

    /// How many chunks the file is downloaded in.
    var chunkCount: Int { (size + Self.chunkSize - 1) / Self.chunkSize }
}

/// One chunk of a large file, as fetched from the server.
struct Chunk: Sendable {
    let index: Int
    let bytes: Int
}

/// What the server says about a file before it is downloaded.
struct Manifest: Sendable {
    let name: String
    let checksum: String
}

/// Why the server turned a request down.
enum ServerError: Error {
    case busy
}
