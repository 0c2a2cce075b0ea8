import Lifeline
import LifelineSamples

// Set LIFELINE_TRACE=trace.jsonl to record this run.
Lifeline.recordingIfRequested { SampleScenario.schedulers.runPrintingToStandardOutput() }
