/// The paths one suffix (a struct field's `.name`, an enum case's, ` (closure)`) made with the
/// paths it last followed, kept from one walk to the next.
///
/// A warm walk makes the same paths as the walk before: `status` + `.subscribed` again for
/// every sink. Making each anew (a copy, an allocation, and later a release) was a tenth of a
/// warm walk; a path made here once is handed out again, its storage shared.
///
/// A path is found by the two words of its prefix's `String` value, compared as they are: for a
/// short prefix they are its bytes, for a longer one its storage and length, which this cache
/// keeps alive (so the storage cannot be reused by another string meanwhile). A prefix made
/// anew every walk finds nothing and takes the place of the oldest entry: at most
/// ``capacity`` entries are kept.
final class PathJoins: @unchecked Sendable {
    static let capacity = 8

    private let suffix: String
    /// Each entry's prefix, kept alive, its two words, and the joined path.
    @exclusivity(unchecked) private var entries: [(prefix: String, words: (UInt64, UInt64), joined: String)] = []
    @exclusivity(unchecked) private var next = 0

    init(suffix: String) {
        self.suffix = suffix
        entries.reserveCapacity(Self.capacity)
    }

    /// `prefix` followed by the suffix.
    func joined(to prefix: String) -> String {
        let words = unsafeBitCast(prefix, to: (UInt64, UInt64).self)
        for entry in entries where entry.words == words { return entry.joined }
        let joined = prefix + suffix
        if entries.count < Self.capacity {
            entries.append((prefix, words, joined))
        } else {
            entries[next] = (prefix, words, joined)
            next = (next + 1) % Self.capacity
        }
        return joined
    }
}
