/// Where in the program's source a pipeline was made: a file and line, and the function.
///
/// Lifeline fills it two ways, with one meaning: a `.lifeline("label")` hop knows the file and
/// line it was written at, and automatic recording finds the program's own call to
/// `subscribe` (or `sink`, `assign`, …) on the call stack and symbolicates it when recording
/// stops. Any part can be missing: a build without debug information gives the function only.
public struct TraceSourceLocation: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The source file, as recorded: a path, or a `Module/File.swift` file id.
    public let file: String?
    /// The line in ``file``.
    public let line: Int?
    /// The function, demangled for people: `SearchViewModel.init(backend:queues:)`.
    public let function: String?

    /// Creates a location; at least one part should be known.
    public init(file: String?, line: Int?, function: String?) {
        self.file = file
        self.line = line
        self.function = function
    }

    /// Reads the `File.swift:42` form a `.lifeline` hop records. Text without a trailing line
    /// number is kept whole as the file.
    public init(fileAndLine text: String) {
        if let colon = text.lastIndex(of: ":"), let line = Int(text[text.index(after: colon)...]) {
            self.init(file: String(text[..<colon]), line: line, function: nil)
        } else {
            self.init(file: text, line: nil, function: nil)
        }
    }

    /// A literal in the `File.swift:42` form, as ``init(fileAndLine:)`` reads it.
    public init(stringLiteral text: String) {
        self.init(fileAndLine: text)
    }

    /// The `File.swift:42` form a `.lifeline` hop writes: the file as recorded and the line.
    public var fileAndLineAsRecorded: String? {
        guard let file else { return nil }
        return line.map { "\(file):\($0)" } ?? file
    }

    /// The file's name without its directories: `SearchViewModel.swift`.
    public var fileName: String? {
        file.map { path in
            // The last component that is not empty, as splitting at every slash would give.
            let bytes = path.utf8
            var end = bytes.endIndex
            while end > bytes.startIndex, bytes[bytes.index(before: end)] == UInt8(ascii: "/") { end = bytes.index(before: end) }
            guard end > bytes.startIndex else { return path }
            let start = bytes[..<end].lastIndex(of: UInt8(ascii: "/")).map(bytes.index(after:)) ?? bytes.startIndex
            return String(path[start..<end])
        }
    }

    /// The file name and line, as pictures show them: `SearchViewModel.swift:24`; `nil` when
    /// the file is unknown.
    public var fileAndLine: String? {
        guard let fileName else { return nil }
        return line.map { "\(fileName):\($0)" } ?? fileName
    }

    /// The function as findings name it: without its argument labels when they add nothing
    /// (an initializer's, `()`, `(_:)`), as `SearchViewModel.init` and
    /// `HomeScreenModel.peekSettings`; with them otherwise, as
    /// `AnalyticsSubscriber.receive(subscription:)`.
    public var shortFunction: String? {
        guard let function else { return nil }
        guard function.hasSuffix(")"), let parenthesis = function.firstIndex(of: "("), parenthesis != function.startIndex
        else { return function }
        let name = function[..<parenthesis]
        let labels = function[function.index(after: parenthesis)..<function.index(before: function.endIndex)]
            .split(separator: ":").filter { $0 != "_" }
        return name.hasSuffix(".init") || name == "init" || labels.isEmpty ? String(name) : function
    }

    /// The function and the place, as findings say them: `SearchViewModel.init at
    /// SearchViewModel.swift:24`, or whichever part is known.
    public var description: String {
        switch (shortFunction, fileAndLine) {
        case let (function?, place?): return "\(function) at \(place)"
        case let (function?, nil): return function
        case let (nil, place?): return place
        case (nil, nil): return "an unknown place"
        }
    }
}
