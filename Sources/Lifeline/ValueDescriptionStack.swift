#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The value descriptions of the deliveries running on each thread, innermost last, so that
/// automatic mode describes a value once for the two events of its delivery: the hook hands the
/// value to the `begin` and again to the `end` callback, and deliveries on one thread nest.
///
/// Each thread's stack is found through a thread-specific key of the recording's own, and
/// made the first time the thread delivers a described value.
final class ValueDescriptionStack: Sendable {
    private let key: pthread_key_t
    /// Every thread's stack, kept (and released) by the recording: their addresses.
    private let stacks = Mutex<[UInt]>([])

    private final class Stack {
        var descriptions: [String?] = []
    }

    init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    deinit {
        stacks.withLock { $0.forEach { Unmanaged<Stack>.fromOpaque(UnsafeRawPointer(bitPattern: $0)!).release() } }
        pthread_key_delete(key)
    }

    /// Keeps `description` for the end of the delivery beginning on the calling thread.
    func push(_ description: String?) {
        stack().descriptions.append(description)
    }

    /// The description the delivery ending on the calling thread was given at its beginning;
    /// nil when its beginning was not recorded (nothing pushed).
    func pop() -> String?? {
        stack().descriptions.popLast()
    }

    private func stack() -> Stack {
        if let existing = pthread_getspecific(key) {
            return Unmanaged<Stack>.fromOpaque(existing).takeUnretainedValue()
        }
        let created = Unmanaged.passRetained(Stack())
        stacks.withLock { $0.append(UInt(bitPattern: created.toOpaque())) }
        pthread_setspecific(key, created.toOpaque())
        return created.takeUnretainedValue()
    }
}
