import Foundation

/// Findings a team has accepted, by fingerprint: with a baseline, only findings not in it fail a
/// run, so known bugs can wait for their fix while a new one fails CI at once.
///
/// A baseline is read from a JSON report `lifeline diagnose --format json` wrote (every
/// finding's `fingerprint`), or from a list of fingerprints, one per line, where blank lines
/// and lines that begin with `#` are comments:
///
/// ```swift
/// let baseline = try DiagnosisBaseline(reading: try String(contentsOfFile: "lifeline-baseline.json", encoding: .utf8))
/// let (new, known) = baseline.split(diagnoses)
/// ```
public struct DiagnosisBaseline: Hashable, Sendable {
    /// The accepted findings' fingerprints (``Diagnosis/fingerprint``).
    public let fingerprints: Set<String>

    /// Why a text is no baseline, in words.
    public struct ReadError: Error, CustomStringConvertible, Hashable, Sendable {
        public let description: String
    }

    /// Creates a baseline of `fingerprints`.
    public init(fingerprints: Set<String>) {
        self.fingerprints = fingerprints
    }

    /// Reads a JSON report or a list of fingerprints.
    ///
    /// - Throws: ``ReadError`` for a JSON text that is not a `lifeline-diagnoses` report, or a
    ///   line that is not a fingerprint (16 hexadecimal digits).
    public init(reading text: String) throws(ReadError) {
        if text.drop(while: \.isWhitespace).first == "{" {
            fingerprints = try Self.fingerprints(inReport: text)
            return
        }
        var fingerprints = Set<String>()
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let entry = line.trimmingCharacters(in: .whitespaces)
            guard !entry.isEmpty, !entry.hasPrefix("#") else { continue }
            guard Self.isFingerprint(entry) else {
                let shown = entry.count > 40 ? String(entry.prefix(40)) + "…" : entry
                throw ReadError(description: "line \(index + 1), \(shown.debugDescription), is not a fingerprint: 16 "
                    + "hexadecimal digits, as the reports print after \"fingerprint:\"")
            }
            fingerprints.insert(entry.lowercased())
        }
        self.fingerprints = fingerprints
    }

    /// `diagnoses` split into those whose fingerprint the baseline does not hold and those it
    /// does, each in the order given.
    public func split(_ diagnoses: [Diagnosis]) -> (new: [Diagnosis], known: [Diagnosis]) {
        (diagnoses.filter { !fingerprints.contains($0.fingerprint) }, diagnoses.filter { fingerprints.contains($0.fingerprint) })
    }

    /// The fingerprints of the baseline that none of `diagnoses` has: the findings fixed since
    /// the baseline was made, sorted.
    public func resolved(given diagnoses: [Diagnosis]) -> [String] {
        fingerprints.subtracting(diagnoses.map(\.fingerprint)).sorted()
    }

    private static func isFingerprint(_ text: String) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
        }
    }

    /// The fingerprints of a JSON report's findings.
    private static func fingerprints(inReport text: String) throws(ReadError) -> Set<String> {
        struct Report: Decodable {
            struct Finding: Decodable {
                let fingerprint: String
            }

            let format: String
            let diagnoses: [Finding]
        }
        let report: Report
        do {
            report = try JSONDecoder().decode(Report.self, from: Data(text.utf8))
        } catch {
            throw ReadError(description: "it is JSON but not a report of `lifeline diagnose --format json` "
                + "(a \"format\" and \"diagnoses\" with a \"fingerprint\" each)")
        }
        guard report.format == JSONDiagnosisReport.formatName else {
            throw ReadError(description: "its format is \"\(report.format.prefix(40))\", not \"\(JSONDiagnosisReport.formatName)\"")
        }
        guard let bad = report.diagnoses.first(where: { !isFingerprint($0.fingerprint) }) else {
            return Set(report.diagnoses.map { $0.fingerprint.lowercased() })
        }
        throw ReadError(description: "a finding's fingerprint \"\(bad.fingerprint.prefix(40))\" is not 16 hexadecimal digits")
    }
}
