import LifelineLog

/// The ``Diagnosis/fingerprint`` of a finding: the same in every run of the same bug, and
/// different for different bugs.
///
/// It hashes what a run does not change: the code; the suspect references of the finding's
/// leak trace, as `Holder.field`; and, for each object the finding names, its type, label and
/// the place in the program that made its pipeline (`Sink "search" SearchModel.swift:17`), each
/// once. Object ids, addresses, sequence numbers, times and counts are left out, so a subject
/// that kept 999 cancelled subscriptions in one run and 1,000 in the next has one fingerprint.
/// The hash is 64-bit FNV-1a, written as 16 hexadecimal digits: unlike Swift's `Hasher`, it is
/// the same in every process.
enum DiagnosisFingerprint {
    /// The fingerprint of `diagnosis`, whose objects `lifecycles` declares.
    static func of(_ diagnosis: Diagnosis, in lifecycles: TraceLifecycles) -> String {
        let objects = Set(diagnosis.objects.map { id -> String in
            guard let object = lifecycles.trace.object(id) else { return "?" }
            return [object.shortTypeName, object.label.map { "\"\($0)\"" }, lifecycles.place(of: id)]
                .compactMap { $0 }.joined(separator: " ")
        })
        return hash([diagnosis.code] + (diagnosis.leakTrace?.suspects ?? []).sorted() + objects.sorted())
    }

    /// 64-bit FNV-1a of `parts`, one per line, as 16 hexadecimal digits.
    static func hash(_ parts: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in parts.joined(separator: "\n").utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
