import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// A real value a program might hold, for inspection tests: made fresh for each test, with
/// what must be undone once it has been inspected (a timer cancelled, an observer removed).
struct Specimen: Sendable, CustomTestStringConvertible {
    /// A made specimen.
    struct Made {
        let value: Any
        /// An object holding the value in a field of the value's own type.
        let typedHolder: AnyObject
        let cleanUp: () -> Void

        init<Value>(_ value: Value, cleanUp: @escaping () -> Void = {}) {
            self.value = value
            typedHolder = TypedHolder(value)
            self.cleanUp = cleanUp
        }
    }

    /// A field of the specimen's own type.
    final class TypedHolder<Value> {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    let name: String
    let make: @Sendable () -> Made

    var testDescription: String { name }

    init<Value>(_ name: String, _ make: @escaping @Sendable () -> Value) {
        self.name = name
        self.make = { Made(make()) }
    }

    init(_ name: String, made: @escaping @Sendable () -> Made) {
        self.name = name
        self.make = made
    }

    /// What the specimens' closures capture. Only the thread that made a specimen mutates its
    /// leaves, and most closures never run.
    final class Leaf: @unchecked Sendable {
        var number = 7
    }

    final class Observed: NSObject {
        var leaf = Leaf()
        var count = 0
    }

    struct Pair {
        var leaf = Leaf()
        var number = 3
    }

    actor Counter {
        var count = 0
        var leaf = Leaf()
        func increment() { count += 1 }
    }

    final class Buffer: ManagedBuffer<Leaf, Leaf> {}

    static func genericClosure<T>(_ value: T) -> () -> T { { value } }

    /// A closure whose capture's type is a dependent member type, `C.Element?`.
    static func firstElement<C: Collection>(of collection: C) -> () -> C.Element? {
        let first = collection.first
        return { first }
    }

    /// A closure that captures a parameter pack.
    static func counting<each Value>(_ values: repeat each Value) -> () -> Int {
        {
            var count = 0
            for _ in repeat each values { count += 1 }
            return count
        }
    }

    static func boxedCounter() -> () -> Int {
        var count = 0
        let leaf = Leaf()
        return {
            count += leaf.number
            return count
        }
    }

    static let all: [Specimen] = foundation + dispatch + standardLibrary + closures

    static let foundation: [Specimen] = [
        Specimen("URLSession.shared") { URLSession.shared },
        Specimen("configured URLSession") {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 5
            configuration.httpAdditionalHeaders = ["X-Probe": "1"]
            return URLSession(configuration: configuration)
        },
        Specimen("URLSessionDataTask, not resumed", made: {
            let session = URLSession(configuration: .ephemeral)
            let task = session.dataTask(with: URL(string: "http://127.0.0.1:9/")!)
            return Made([task, session] as [AnyObject]) { session.invalidateAndCancel() }
        }),
        Specimen("URLRequest") {
            var request = URLRequest(url: URL(string: "https://example.com/a?b=c")!)
            request.httpMethod = "POST"
            request.httpBody = Data(repeating: 1, count: 100)
            return request
        },
        Specimen("URL") { URL(string: "https://example.com/path/to/resource?query=1#fragment")! },
        Specimen("file URL") { URL(fileURLWithPath: "/tmp/a/b/c.txt") },
        Specimen("small Data") { Data([1, 2, 3]) },
        Specimen("large Data") { Data(repeating: 0xAB, count: 10_000) },
        Specimen("Data slice") { Data(repeating: 0xCD, count: 1_000)[10..<500] },
        Specimen("Date") { Date(timeIntervalSince1970: 1_000_000) },
        Specimen("UUID") { UUID() },
        Specimen("JSONDecoder") { JSONDecoder() },
        Specimen("JSONEncoder") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            encoder.userInfo[CodingUserInfoKey(rawValue: "probe")!] = Leaf()
            return encoder
        },
        Specimen("PropertyListEncoder") { PropertyListEncoder() },
        Specimen("OperationQueue with operations", made: {
            let queue = OperationQueue()
            queue.isSuspended = true
            let leaf = Leaf()
            for index in 0..<4 { queue.addOperation { leaf.number += index } }
            return Made(queue) {
                queue.cancelAllOperations()
                queue.isSuspended = false
                queue.waitUntilAllOperationsAreFinished()
            }
        }),
        Specimen("BlockOperation") {
            let leaf = Leaf()
            let operation = BlockOperation { leaf.number += 1 }
            operation.addExecutionBlock { leaf.number += 2 }
            return operation
        },
        Specimen("Thread, not started") {
            let leaf = Leaf()
            return Thread { leaf.number += 1 }
        },
        Specimen("Thread.current") { Thread.current },
        Specimen("Timer, not scheduled") {
            let leaf = Leaf()
            return Timer(timeInterval: 60, repeats: true) { _ in leaf.number += 1 }
        },
        Specimen("RunLoop.current") { RunLoop.current },
        Specimen("NotificationCenter with an observer", made: {
            let center = NotificationCenter()
            let leaf = Leaf()
            let token = center.addObserver(forName: Notification.Name("probe"), object: nil, queue: nil) { _ in
                leaf.number += 1
            }
            return Made([center, token] as [AnyObject]) { center.removeObserver(token) }
        }),
        Specimen("NotificationCenter.default") { NotificationCenter.default },
        Specimen("NSLock") { NSLock() },
        Specimen("NSRecursiveLock") { NSRecursiveLock() },
        Specimen("NSCondition") { NSCondition() },
        Specimen("FileManager") { FileManager.default },
        Specimen("ProcessInfo") { ProcessInfo.processInfo },
        Specimen("NSString") { NSString(string: "an NSString that is long enough to be stored out of line") },
        Specimen("NSMutableString") { NSMutableString(string: "mutable") },
        Specimen("NSNumber") { NSNumber(value: 42.5) },
        Specimen("NSArray") { NSArray(array: [Leaf(), "string", 3, NSNumber(value: 1)]) },
        Specimen("NSDictionary") { NSDictionary(dictionary: ["leaf": Leaf(), "number": 1]) },
        Specimen("NSObject subclass") { Observed() },
        Specimen("NSObject") { NSObject() },
        Specimen("Decimal") { Decimal(string: "12345678901234567890.123456789")! },
        Specimen("IndexSet") { IndexSet([1, 5, 9, 100, 1000]) },
        Specimen("CharacterSet") { CharacterSet.alphanumerics },
        Specimen("DateFormatter") { DateFormatter() },
        Specimen("Calendar") { Calendar.current },
        Specimen("Locale") { Locale(identifier: "en_US") },
        Specimen("TimeZone") { TimeZone(identifier: "Europe/Paris")! },
        Specimen("Notification") { Notification(name: .init("probe"), object: Leaf(), userInfo: ["key": Leaf()]) },
        Specimen("NSError") { NSError(domain: "probe", code: 1, userInfo: [NSLocalizedDescriptionKey: "failed"]) },
        Specimen("Swift Error in Any") { CocoaError(.fileNoSuchFile) as Error },
    ]

    static let dispatch: [Specimen] = [
        Specimen("serial DispatchQueue") { DispatchQueue(label: "probe.serial") },
        Specimen("concurrent DispatchQueue") { DispatchQueue(label: "probe.concurrent", attributes: .concurrent) },
        Specimen("DispatchQueue with target") {
            let target = DispatchQueue(label: "probe.target")
            return DispatchQueue(label: "probe.targeted", qos: .utility, target: target)
        },
        Specimen("DispatchQueue.main") { DispatchQueue.main },
        Specimen("DispatchQueue.global") { DispatchQueue.global() },
        Specimen("DispatchWorkItem") {
            let leaf = Leaf()
            return DispatchWorkItem { leaf.number += 1 }
        },
        Specimen("DispatchGroup") {
            let group = DispatchGroup()
            group.enter()
            group.leave()
            return group
        },
        Specimen("DispatchSemaphore") { DispatchSemaphore(value: 2) },
        Specimen("DispatchSource timer", made: {
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "probe.timer"))
            let leaf = Leaf()
            timer.setEventHandler { leaf.number += 1 }
            timer.schedule(deadline: .now() + 3_600, repeating: 3_600)
            timer.resume()
            return Made(timer) { timer.cancel() }
        }),
        Specimen("DispatchData") { [UInt8](repeating: 9, count: 100).withUnsafeBytes { DispatchData(bytes: $0) } },
        Specimen("DispatchTime") { DispatchTime.now() },
    ]

    static let standardLibrary: [Specimen] = [
        Specimen("small String") { "small" },
        Specimen("large String") { String(repeating: "large string ", count: 20) },
        Specimen("bridged String") { NSString(string: String(repeating: "bridged ", count: 10)) as String },
        Specimen("Substring") { String(repeating: "substring ", count: 10).dropFirst(3) },
        Specimen("Character") { Character("é") },
        Specimen("large Character") { Character("👩‍👩‍👧‍👦") },
        Specimen("AnyHashable of a String") { AnyHashable(String(repeating: "hashable ", count: 5)) },
        Specimen("AnyHashable of a struct") { AnyHashable(UUID()) },
        Specimen("AnyKeyPath") { \Observed.leaf.number as AnyKeyPath },
        Specimen("WritableKeyPath") { \Pair.number },
        Specimen("key path with a subscript") { \[Int][1] },
        Specimen("Mirror") { Mirror(reflecting: Pair()) },
        Specimen("actor") { Counter() },
        Specimen("Task handle", made: {
            let task = Task { try await Task.sleep(nanoseconds: 3_600_000_000_000) }
            return Made(task) { task.cancel() }
        }),
        Specimen("finished Task") { Task { 42 } },
        Specimen("Unmanaged") { Unmanaged.passUnretained(Leaf()) },
        Specimen("UnsafeMutablePointer to heap memory", made: {
            let pointer = UnsafeMutablePointer<Leaf>.allocate(capacity: 4)
            pointer.initialize(repeating: Leaf(), count: 4)
            return Made(pointer) {
                pointer.deinitialize(count: 4)
                pointer.deallocate()
            }
        }),
        Specimen("UnsafeMutableRawPointer into an object") {
            UnsafeMutableRawPointer(Unmanaged.passUnretained(Leaf()).toOpaque()) + 16
        },
        Specimen("ManagedBuffer subclass") {
            Buffer.create(minimumCapacity: 8) { _ in Leaf() }
        },
        Specimen("struct with a reference") { Pair() },
        Specimen("tuple") { (Leaf(), 1, "two", Pair()) },
        Specimen("array of Any") { [Leaf(), 1, "two", Pair(), [Leaf()]] as [Any] },
        Specimen("dictionary of AnyHashable") { [AnyHashable(1): Leaf(), AnyHashable("two"): Pair()] },
        Specimen("set of ObjectIdentifier") { Set([ObjectIdentifier(Leaf.self), ObjectIdentifier(Pair.self)]) },
        Specimen("metatype") { Leaf.self },
        Specimen("existential metatype") { (Leaf.self as Any.Type) },
        Specimen("Optional of an object") { Optional(Leaf()) as Any },
        Specimen("Result") { Result<Leaf, CocoaError>.success(Leaf()) },
        Specimen("ContiguousArray") { ContiguousArray([Leaf(), Leaf()]) },
        Specimen("lazy sequence") { [Leaf(), Leaf()].lazy.map { $0.number } },
        Specimen("AnySequence") { AnySequence([Leaf(), Leaf()]) },
        Specimen("AnyIterator") {
            var count = 0
            return AnyIterator { () -> Int? in
                count += 1
                return count < 10 ? count : nil
            }
        },
        Specimen("range") { 0..<100 },
        Specimen("StaticString") { "static" as StaticString },
    ]

    static let closures: [Specimen] = [
        Specimen("closure capturing nothing") { { 1 } as () -> Int },
        Specimen("closure capturing an object") {
            let leaf = Leaf()
            return { leaf.number } as () -> Int
        },
        Specimen("closure capturing a struct") {
            let pair = Pair()
            let text = String(repeating: "captured ", count: 8)
            return { pair.number + text.count + pair.leaf.number } as () -> Int
        },
        Specimen("closure capturing weak and unowned") {
            let leaf = Leaf()
            let other = Leaf()
            return { [weak leaf, unowned other] in (leaf?.number ?? 0) + other.number } as () -> Int
        },
        Specimen("generic closure") { genericClosure(Pair()) },
        Specimen("generic closure of a class") { genericClosure(Leaf()) },
        Specimen("closure with a boxed var") { boxedCounter() },
        Specimen("closure capturing a dependent member type") { firstElement(of: [Leaf(), Leaf()]) },
        Specimen("closure capturing a parameter pack") { counting(Leaf(), 1, "two", Pair()) },
        Specimen("async closure") {
            let leaf = Leaf()
            return { () async -> Int in leaf.number } as () async -> Int
        },
        Specimen("throwing closure") {
            let leaf = Leaf()
            return { () throws -> Int in leaf.number } as () throws -> Int
        },
        Specimen("typed-throws closure") {
            let leaf = Leaf()
            return { () throws(CocoaError) -> Int in leaf.number } as () throws(CocoaError) -> Int
        },
        Specimen("@Sendable closure") { { @Sendable in 1 } as @Sendable () -> Int },
        Specimen("@isolated(any) closure") {
            let leaf = Leaf()
            return { @MainActor in _ = leaf } as @isolated(any) () -> Void
        },
        Specimen("@convention(c) function") { { $0 + 1 } as @convention(c) (Int) -> Int },
        Specimen("closure in a closure") {
            let leaf = Leaf()
            let inner = { leaf.number }
            return { inner() + 1 } as () -> Int
        },
        Specimen("method reference") {
            let counter = Counter()
            return { await counter.increment() } as () async -> Void
        },
        Specimen("optional closure") {
            let leaf = Leaf()
            return Optional({ leaf.number } as () -> Int) as Any
        },
    ]
}
