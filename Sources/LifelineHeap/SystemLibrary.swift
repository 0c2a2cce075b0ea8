/// The modules whose objects are the platform's rather than the program's: the standard
/// library, Dispatch and Foundation.
///
/// Heap inspection draws such an object as one node and does not draw its internals. It still
/// walks them, so that a program object it holds deep inside (a view model captured by a
/// `BlockOperation`'s block, a subscriber behind a data task's completion handler) appears as
/// a reference from it, with the field path through the internals. Without this boundary one
/// `URLSession` would fill a graph with dozens of Foundation objects no user wrote.
enum SystemLibrary {
    static let modules: Set<Substring> = [
        "Swift", "_Concurrency", "_StringProcessing", "Synchronization", "Observation", "Dispatch", "CoreFoundation",
        "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking", "FoundationXML",
    ]

    /// Whether the fully qualified type name `typeName` names a type of one of ``modules``.
    static func owns(_ typeName: String) -> Bool {
        guard let dot = typeName.firstIndex(of: ".") else { return false }
        return modules.contains(typeName[..<dot])
    }
}
