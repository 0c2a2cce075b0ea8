import LifelineLog
import Testing

@Suite struct TraceSourceLocationTests {
    @Test func aHopsFileAndLineIsReadBackAsWritten() {
        let location = TraceSourceLocation(fileAndLine: "App/Feed.swift:12")
        #expect(location.file == "App/Feed.swift" && location.line == 12)
        #expect(location.fileAndLineAsRecorded == "App/Feed.swift:12")
        #expect(location.fileAndLine == "Feed.swift:12")
        #expect(TraceSourceLocation(fileAndLine: "no line:").file == "no line:")
    }

    @Test func aFileNameIsThePathsLastComponentThatIsNotEmpty() {
        let names = ["/src/App/Feed.swift": "Feed.swift", "Feed.swift": "Feed.swift", "App/": "App", "a//b.swift": "b.swift",
                     "/": "/", "": "", "Módulo/Ünïcode.swift": "Ünïcode.swift"]
        for (path, name) in names {
            #expect(TraceSourceLocation(file: path, line: nil, function: nil).fileName == name)
        }
    }

    @Test func functionsLoseOnlyTheLabelsThatSayNothing() {
        let names = [
            "SearchViewModel.init(backend:queues:)": "SearchViewModel.init",
            "HomeScreenModel.peekSettings()": "HomeScreenModel.peekSettings",
            "HomeScreenModel.watchBadgeWhileLoading(_:)": "HomeScreenModel.watchBadgeWhileLoading",
            "AnalyticsSubscriber.receive(subscription:)": "AnalyticsSubscriber.receive(subscription:)",
            "closure #1 in HomeScreenModel.init(store:)": "closure #1 in HomeScreenModel.init",
            "main": "main",
        ]
        for (function, short) in names {
            #expect(TraceSourceLocation(file: nil, line: nil, function: function).shortFunction == short)
        }
    }

    @Test func aLocationSaysWhatIsKnown() {
        #expect(TraceSourceLocation(file: "/src/A.swift", line: 3, function: "A.init()").description == "A.init at A.swift:3")
        #expect(TraceSourceLocation(file: nil, line: nil, function: "A.run()").description == "A.run")
        #expect(TraceSourceLocation(file: "/src/A.swift", line: nil, function: nil).description == "A.swift")
    }
}
