import Foundation
@testable import LifelineLog

/// The records in a binary log's bytes, found as the reader finds them, for tests that cut,
/// tear or reorder them.
enum BinaryLogRecords {
    /// The byte ranges of the records in `data`, in file order. Filler bytes never begin a
    /// record or a line, so a version 6 log, which has none, reads the same way.
    static func ranges(in data: Data) -> [Range<Int>] {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var length = bytes.count
            while length > 0 && bytes[length - 1] == 0 { length -= 1 }
            let trimmed = UnsafeBufferPointer(rebasing: bytes[0..<length])
            let start = TraceReader.lineEnd(in: trimmed, from: 0) + 1
            var ranges: [Range<Int>] = []
            try? BinaryLogLayout.forEachPart(in: trimmed, from: start, chunked: true) { part, _ throws(TraceReadError) in
                if case .record(let range) = part { ranges.append(range) }
            }
            return ranges
        }
    }

    /// The sequence number of the record at `range` of `data`.
    static func seq(ofRecordAt range: Range<Int>, in data: Data) -> UInt64 {
        data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: range.lowerBound + 8, as: UInt64.self) }
    }
}
