import Testing

/// Recording is process-wide, so every suite that records runs inside this one, one test at
/// a time.
@Suite(.serialized) enum RecordingTests {}
