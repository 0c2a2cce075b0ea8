import LifelineLog

/// The version of Lifeline, which `lifeline --version` prints: the one place it is written.
enum LifelineVersion {
    /// The release, as semantic versioning: major.minor.patch.
    static let number = "0.1.0"

    /// What `lifeline --version` prints: the release and the log format versions it writes
    /// and reads.
    static var description: String {
        let readable = TraceHeader.readableVersions
        return "\(number) (writes log formats \(TraceHeader.jsonLinesVersion) and \(TraceHeader.currentBinaryVersion), reads \(readable.lowerBound)–\(readable.upperBound))"
    }
}
