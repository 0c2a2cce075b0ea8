import Foundation

/// A thread that runs a run loop, for `Timer.publish`, until ``finish()``.
final class TimerThread: Thread {
    private let started = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var finished = false
    private var loop: RunLoop?

    /// Starts the thread and waits until its run loop runs.
    override init() {
        super.init()
        name = "backup.timers"
        start()
        started.wait()
    }

    /// The thread's run loop.
    var runLoop: RunLoop {
        lock.lock()
        defer { lock.unlock() }
        return loop!
    }

    override func main() {
        let current = RunLoop.current
        // A timer that never fires keeps the run loop from returning at once while no other
        // timer is scheduled.
        current.add(Timer(timeInterval: 3_600, repeats: true) { _ in }, forMode: .default)
        lock.lock()
        loop = current
        lock.unlock()
        started.signal()
        while !isFinishing {
            _ = current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.005))
        }
    }

    /// Lets the thread end after its current turn of the run loop.
    func finish() {
        lock.lock()
        finished = true
        lock.unlock()
    }

    private var isFinishing: Bool {
        lock.lock()
        defer { lock.unlock() }
        return finished
    }
}
