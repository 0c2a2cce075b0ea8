import Foundation
import LifelineLog

/// Diagnoses as JSON for tools and CI, in the stable schema that docs/Diagnoses.md documents.
///
/// The same trace and diagnoses always give the same bytes: keys are sorted, diagnoses keep
/// ``TraceAnalyzer``'s order, and nothing depends on time or memory addresses.
///
/// ```swift
/// let json = JSONDiagnosisReport(trace: trace, diagnoses: diagnoses).render()
/// ```
public struct JSONDiagnosisReport: Sendable {
    /// The value of the report's `format` field.
    public static let formatName = "lifeline-diagnoses"
    /// The schema version this build writes. It changes only when a field changes meaning or
    /// disappears; new fields may be added within a version.
    public static let version = 1

    /// The trace the diagnoses are about.
    public let trace: Trace
    /// The diagnoses, in the order ``TraceAnalyzer`` gives them.
    public let diagnoses: [Diagnosis]
    /// The problems Combine's implementation causes, listed apart from the findings and not
    /// counted with them (``LibraryFinding/find(in:)``).
    public let library: [LibraryFinding]

    /// Creates a report.
    public init(trace: Trace, diagnoses: [Diagnosis], library: [LibraryFinding] = []) {
        self.trace = trace
        self.diagnoses = diagnoses
        self.library = library
    }

    /// The report as pretty-printed JSON with sorted keys, ending with a newline.
    public func render() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Every field is a string, a number, a boolean, an array or an object of those, so
        // encoding cannot fail.
        let data = (try? encoder.encode(document())) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private func document() -> Document {
        let events = EventPositions(trace.events)
        return Document(
            format: Self.formatName, version: Self.version,
            trace: TraceSummary(
                process: trace.header.processName, events: trace.events.count,
                damage: trace.damage.map(\.description), endIsKnown: TraceLifecycles.endIsKnown(trace.damage),
                hangs: trace.hangs.isEmpty ? nil : trace.hangs.map { hang in
                    HangEntry(at: hang.seq, t: hang.time, idle: hang.idle, cause: hang.cause.rawValue)
                }
            ),
            summary: Summary(
                errors: diagnoses.count { $0.severity == .error },
                warnings: diagnoses.count { $0.severity == .warning },
                info: diagnoses.count { $0.severity == .info },
                skipped: SkippedCheck.skipped(in: trace).map { skipped in
                    SkippedEntry(checks: skipped.checks, reason: skipped.reason, remedy: skipped.remedy)
                }
            ),
            diagnoses: diagnoses.map { diagnosis in
                DiagnosisEntry(
                    code: diagnosis.code, severity: diagnosis.severity.rawValue, message: diagnosis.message,
                    fix: diagnosis.fix, fingerprint: diagnosis.fingerprint.isEmpty ? nil : diagnosis.fingerprint,
                    objects: diagnosis.objects.map(object),
                    hop: diagnosis.hop.map { hop in
                        HopEntry(
                            publisher: hop.publisher.map(object), subscription: hop.subscription.map(object),
                            subscriber: object(hop.subscriber)
                        )
                    },
                    evidence: diagnosis.evidence.map { seq in
                        let line = events.event(seq).map { TimelineLine($0, in: trace) } ?? TimelineLine(missing: seq)
                        return EvidenceEntry(
                            seq: seq, kind: line.kind, phase: line.phase.rawValue, thread: line.context, text: line.text
                        )
                    },
                    leakTrace: diagnosis.leakTrace.map { leakTrace in
                        LeakTraceEntry(
                            steps: leakTrace.steps.map { step in
                                LeakTraceStepEntry(
                                    object: object(step.object), verdict: step.verdict.rawValue, reason: step.reason,
                                    reference: step.reference, suspect: step.isSuspect
                                )
                            },
                            loopStart: leakTrace.loopStart
                        )
                    }
                )
            },
            library: library.isEmpty ? nil : library.map { finding in
                LibraryEntry(
                    code: finding.code, types: finding.types, count: finding.count, example: finding.example.map(object),
                    summary: finding.summary, reason: finding.reason, evidence: finding.evidence, fingerprint: finding.fingerprint
                )
            }
        )
    }

    private func object(_ id: TraceObjectID) -> ObjectEntry {
        let declaration = trace.object(id)
        return ObjectEntry(
            id: id.rawValue, role: declaration?.role.rawValue, type: declaration?.typeName,
            shortType: declaration?.shortTypeName, label: declaration?.label,
            // The file's name, not its path: a report must read the same on every machine.
            source: declaration?.sourceLocation?.fileAndLine, function: declaration?.sourceLocation?.function
        )
    }

    private struct Document: Encodable {
        let format: String
        let version: Int
        let trace: TraceSummary
        let summary: Summary
        let diagnoses: [DiagnosisEntry]
        let library: [LibraryEntry]?
    }

    private struct LibraryEntry: Encodable {
        let code: String
        let types: [String]
        let count: Int
        let example: [ObjectEntry]
        let summary: String
        let reason: String
        let evidence: [UInt64]
        let fingerprint: String
    }

    private struct TraceSummary: Encodable {
        let process: String
        let events: Int
        let damage: [String]
        let endIsKnown: Bool
        /// The log's hang records, in order; absent when it has none.
        let hangs: [HangEntry]?
    }

    /// A hang record, as the log writes it.
    private struct HangEntry: Encodable {
        let at: UInt64
        let t: UInt64
        let idle: UInt64
        let cause: String
    }

    private struct Summary: Encodable {
        let errors: Int
        let warnings: Int
        let info: Int
        let skipped: [SkippedEntry]
    }

    private struct SkippedEntry: Encodable {
        let checks: [String]
        let reason: String
        let remedy: String?
    }

    private struct DiagnosisEntry: Encodable {
        let code: String
        let severity: String
        let message: String
        let fix: String
        let fingerprint: String?
        let objects: [ObjectEntry]
        let hop: HopEntry?
        let evidence: [EvidenceEntry]
        let leakTrace: LeakTraceEntry?
    }

    private struct LeakTraceEntry: Encodable {
        let steps: [LeakTraceStepEntry]
        let loopStart: Int?
    }

    private struct LeakTraceStepEntry: Encodable {
        let object: ObjectEntry
        let verdict: String
        let reason: String
        let reference: String?
        let suspect: Bool
    }

    private struct HopEntry: Encodable {
        let publisher: ObjectEntry?
        let subscription: ObjectEntry?
        let subscriber: ObjectEntry
    }

    private struct ObjectEntry: Encodable {
        let id: UInt64
        let role: String?
        let type: String?
        let shortType: String?
        let label: String?
        let source: String?
        let function: String?
    }

    private struct EvidenceEntry: Encodable {
        let seq: UInt64
        let kind: String
        let phase: String
        let thread: String
        let text: String
    }
}
