import CLifelineRuntime
#if canImport(Glibc)
import Glibc
#endif
import OpenCombineShim
import Testing
@testable import Lifeline
import LifelineLog

extension RecordingTests {
    /// Call sites: the program's line that made each pipeline, and who cancelled, captured as raw
    /// addresses and symbolicated when recording stops.
    @Suite struct CallSiteTests {
        @Test func aSinkIsNamedByTheFileLineAndFunctionThatCalledIt() throws {
            let subject = PassthroughSubject<Int, Never>()
            var line = 0
            var tokens: [AnyCancellable] = []
            let trace = try Lifeline.record {
                line = #line; tokens.append(subject.sink { _ in })
                subject.send(1)
            }
            let sink = try #require(trace.objects.values.first { $0.shortTypeName == "Sink" })
            let location = try #require(sink.sourceLocation)
            #expect(location.file == #filePath)
            #expect(location.line == line)
            #expect(location.function?.contains("aSinkIsNamedByTheFileLineAndFunctionThatCalledIt") == true, "\(location)")
            #expect(sink.callSite.flatMap { trace.callSites[$0]?.location } == location)
            tokens.removeAll()
        }

        @Test func aHopIsNamedWhereItWasWrittenInOperatorMode() throws {
            let subject = PassthroughSubject<Int, Never>()
            var tokens: [AnyCancellable] = []
            var line = 0
            let trace = try Lifeline.record(options: RecordingOptions(automatic: false)) {
                line = #line; tokens.append(subject.lifeline("feed").sink { _ in })
            }
            let hop = try #require(trace.objects.values.first { $0.label == "feed" && $0.role == .subscriber })
            #expect(hop.sourceLocation?.fileName == "CallSiteTests.swift")
            #expect(hop.sourceLocation?.line == line)
            #expect(hop.callSite.flatMap { trace.callSites[$0]?.location?.line } == line)
            tokens.removeAll()
        }

        @Test func aFlatMapsInnerSubscribeIsNamedByItsPipelineAndASinkClosuresSubscribeByTheClosure() throws {
            let outer = PassthroughSubject<Int, Never>()
            let inner = PassthroughSubject<Int, Never>()
            var tokens: [AnyCancellable] = []
            var (pipelineLine, closureLine) = (0, 0)
            let trace = try Lifeline.record {
                pipelineLine = #line; tokens.append(outer.flatMap { _ in Just(1) }.sink { _ in })
                tokens.append(outer.sink { _ in closureLine = #line; tokens.append(inner.sink { _ in }) })
                outer.send(1)
            }
            let justInner = try #require(trace.objects.values.first { $0.typeName.contains("Just") && $0.role == .subscription })
            #expect(justInner.sourceLocation?.line == pipelineLine, "\(justInner.displayName) \(String(describing: justInner.sourceLocation))")
            let closureSink = try #require(trace.objects.values.first { $0.shortTypeName == "Sink" && $0.sourceLocation?.line == closureLine })
            #expect(closureSink.sourceLocation?.function?.contains("closure") == true)
            tokens.removeAll()
        }

        @Test func aSubscriptionSharedByManyPipelinesIsNamedByNone() throws {
            // `Subscriptions.empty` is one value for every pipeline that gets it: the line that
            // met it first must not name the others' findings.
            var tokens: [AnyCancellable] = []
            var (firstLine, secondLine) = (0, 0)
            let trace = try Lifeline.record {
                firstLine = #line; tokens.append(Empty<Int, Never>(completeImmediately: false).sink { _ in })
                secondLine = #line; tokens.append(Empty<Int, Never>(completeImmediately: false).map { $0 }.sink { _ in })
            }
            let empty = try #require(trace.objects.values.first { $0.role == .subscription && !$0.lifetimeTracked })
            #expect(empty.sourceLocation == nil, "\(empty.displayName) \(String(describing: empty.sourceLocation))")
            let sinkLines = Set(trace.objects.values.filter { $0.shortTypeName == "Sink" }.compactMap { $0.sourceLocation?.line })
            #expect(sinkLines == [firstLine, secondLine])
            tokens.removeAll()
        }

        @Test func aCancelSaysWhetherTheTokenWasReleasedOrCancelledOnPurpose() throws {
            let subject = PassthroughSubject<Int, Never>()
            var called = 0
            func dropsItsToken() {
                var tokens = Set<AnyCancellable>()
                subject.sink { _ in }.store(in: &tokens)
            }
            let trace = try Lifeline.record {
                dropsItsToken()
                let token = subject.sink { _ in }
                called = #line; token.cancel()
            }
            let sites = trace.events.compactMap { event in trace.cancelSite(of: event) }
            #expect(sites.map(\.cancelCause) == [.released, .called])
            // A scope's end has no line of its own in the debug information; the function says
            // where the token was let go of.
            #expect(sites.first?.location?.function?.contains("dropsItsToken") == true)
            #expect(sites.last?.location?.line == called)
        }

        @Test func theModuleOfASymbolIsReadFromItsMangledName() {
            #expect(CallStackReading.module(ofMangledName: "$s13NewsReaderApp15HomeScreenModelC22watchBadgeWhileLoadingyyAA12ArticleStoreCF") == "NewsReaderApp")
            #expect(CallStackReading.module(ofMangledName: "$s11OpenCombine14AnyCancellableCfD") == "OpenCombine")
            // An extension of OpenCombine's Publisher declared in Lifeline belongs to Lifeline.
            #expect(CallStackReading.module(ofMangledName: "$s11OpenCombine9PublisherP8LifelineE8lifeline_4file4lineAC10PublishersO0C0Vy_xGSS_s12StaticStringVSutF") == "Lifeline")
            #expect(CallStackReading.module(ofMangledName: "main") == nil)
        }

        @Test func anOptimizedCopyOfAFunctionIsNamedAsTheSourceNamesIt() {
            // What an optimized build's frames are called: a specialization, a merged function.
            let frames = [("$s4main5ModelC4bindyyFTf4d_n", "specialized Model.bind()"), ("$s4main3fooyyxlFSi_Tg5", "specialized foo<A>(_:)"),
                          ("$s4main5ModelC4loadyyFTm", "merged Model.load()"), ("$s4main5ModelC4bindyyF", "Model.bind()")]
            let names = frames.map { mangled, name in
                CallStackReading(frames: [CallStackSymbolicator.Frame(
                    mangledName: mangled, name: name, file: "/src/Model.swift", line: 12, imageName: "main", isThunk: false
                )]).location?.function
            }
            #expect(names == ["Model.bind()", "foo<A>(_:)", "Model.load()", "Model.bind()"])
        }

        @Test func eachAddressIsSymbolicatedIntoItsFunctionAndLine() throws {
            let (addresses, line) = (Self.returnAddresses(), #line)
            let frames = CallStackSymbolicator.frames(returnAddresses: addresses).flatMap { $0 }
            let here = try #require(frames.first { $0.name?.contains("eachAddressIsSymbolicatedIntoItsFunctionAndLine") == true })
            #expect(here.line == line)
            #expect(here.file == #filePath)
            #expect(CallStackSymbolicator.frames(returnAddresses: addresses).flatMap { $0 } == frames)
        }

        /// Swift's `ImageMap.capture()` reads each mapped file's ELF header in place, and an
        /// ELF file mapped without read access (as valgrind's own images look to its guest)
        /// crashed the traced program when recording stopped.
        @Test func anUnreadableMappingOfABinaryDoesNotCrashSymbolication() throws {
            let file = open("/usr/bin/true", O_RDONLY) // a binary the process has not mapped
            try #require(file >= 0)
            defer { close(file) }
            let page = try #require(mmap(nil, 4096, PROT_NONE, MAP_PRIVATE, file, 0))
            try #require(page != MAP_FAILED)
            defer { munmap(page, 4096) }
            let (addresses, line) = (Self.returnAddresses(), #line)
            let frames = CallStackSymbolicator.frames(returnAddresses: addresses).flatMap { $0 }
            let here = try #require(frames.first { $0.name?.contains("anUnreadableMappingOfABinaryDoesNotCrashSymbolication") == true })
            #expect(here.line == line)
        }

        /// A site captured while recording runs is symbolicated by the recorder's own thread
        /// without waiting for the stop, and the stop names it from what that thread left. The
        /// thread runs at the lowest priority, so the wait is bounded only by what else keeps
        /// the machine busy; it is whatever the machine needs, within two minutes.
        @Test func aSiteIsSymbolicatedWhileRecordingRunsAndStoppingNamesItFromThat() async throws {
            let recorder = CallSiteRecorder(generation: UInt64.max - 25, capturing: true)
            let (site, line) = (recorder.subscribeBegins(), #line)
            recorder.subscribeEnds()
            let number = try #require(site)
            let deadline = ContinuousClock.now + .seconds(120)
            while recorder.symbolicatedSites < Int(number), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(recorder.symbolicatedSites >= Int(number))
            let resolved = try #require(recorder.resolvedSites().first { $0.id == number })
            #expect(resolved.location?.file == #filePath)
            #expect(resolved.location?.line == line)
            #expect(resolved.location?.function?.contains("aSiteIsSymbolicatedWhileRecordingRuns") == true, "\(String(describing: resolved.location))")
        }

        @inline(never)
        static func returnAddresses() -> [UInt] {
            withUnsafeTemporaryAllocation(of: UInt.self, capacity: 8) { buffer in
                Array(buffer.prefix(Int(lifeline_capture_return_addresses(buffer.baseAddress!, 8))))
            }
        }
    }
}
