import LifelineLog
import Testing
@testable import LifelineRender

/// The timeline's heading lists objects by their short names: generic arguments, which run to
/// thousands of characters, are elided unless asked for.
@Suite struct TimelineHeaderTests {
    static var deeplyGeneric: Trace {
        var script = TraceScript()
        var type = "Swift.Int"
        for _ in 0..<40 { type = "OpenCombine.Publishers.Map<\(type), Swift.String>" }
        script.objects[TraceObjectID(1)] = TraceObject(
            id: TraceObjectID(1), role: .publisher, typeName: type, shortTypeName: "Map", lifetimeTracked: true)
        let sink = script.object(2, .subscriber, "Subscribers.Sink")
        script.call(.subscribe(publisher: TraceObjectID(1), subscriber: sink))
        return script.trace
    }

    @Test func genericArgumentsAreElidedInTheHeading() {
        let timeline = TimelineRenderer(showsTimes: false).render(Self.deeplyGeneric)
        let heading = timeline.split(separator: "\n").first { $0.contains("Map #1 (publisher)") }!
        #expect(heading == "  Map #1 (publisher) OpenCombine.Publishers.Map<…>")
        #expect(timeline.split(separator: "\n").allSatisfy { $0.count < 200 })
    }

    @Test func fullTypesShowTheWholeName() {
        let trace = Self.deeplyGeneric
        let timeline = TimelineRenderer(showsTimes: false, showsFullTypes: true).render(trace)
        #expect(timeline.contains(trace.objects[TraceObjectID(1)]!.typeName))
    }
}
