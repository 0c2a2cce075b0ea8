/// A photo or video in the library, as the scanner reads it from disk.
struct Photo: Equatable, CustomStringConvertible {
    let id: Int
    let album: String
    let bytes: Int
    var isVideo = false
    /// Whether an earlier run already backed it up.
    var isBackedUp = false

    var description: String { "photo #\(id)" }
}

/// A rendered thumbnail.
struct Thumbnail: Equatable {
    let photo: Int
    let cached: Bool
}

/// The server's answer to an upload.
struct Receipt: Equatable {
    let photo: Int
    let bytes: Int
}

/// Why an upload failed.
enum UploadError: Error, Equatable {
    /// The photo is larger than the server accepts.
    case tooLarge(photo: Int)
}
