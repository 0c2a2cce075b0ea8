import CLifelineRuntime
import Foundation
import LifelineLog
import Synchronization

/// A recording's watch for hangs: a thread of its own that writes a hang record, and a snapshot,
/// when the watchdog sees no event for its time while pipelines are open, and whenever the
/// process receives `SIGQUIT`.
///
/// Recording pays nothing for it: the thread wakes a few times per watchdog period (at most
/// once a second) and reads the log's sequence counter, which every event updates anyway. Only
/// when the counter stood still for the whole period does it read the log written so far, once
/// per quiet stretch, to see whether a pipeline is open (a program with none is idle, not
/// hung). `SIGQUIT`'s handler only writes a byte to a pipe this thread waits on; the thread does
/// the rest. The handler is installed only where the program did not install its own for
/// `SIGQUIT`, and the disposition it replaced (the default, or ignored) is put back when
/// recording stops. The thread holds no traced object, and the session only while
/// it runs.
final class HangWatch: Sendable {
    /// The watchdog's period, or `nil` when it is off.
    private let period: Mutex<Duration?>
    /// The pipe the thread waits on: `SIGQUIT`'s handler writes `Q`, ``stop()`` `S`, and a new
    /// period `W`.
    private let wake: (read: Int32, write: Int32)
    /// Whether this watch installed the `SIGQUIT` handler.
    private let handlesQuit: Bool
    /// Signalled when the thread has stopped.
    private let finished = DispatchSemaphore(value: 0)
    /// The process that started the thread: a forked child has no such thread to wait for.
    private let process = getpid()

    /// Starts watching `session`, with the watchdog's period `period` (`nil`: only `SIGQUIT`).
    init(session: RecordingSession, period: Duration?) {
        self.period = Mutex(period)
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, O_NONBLOCK)
            }
        } else {
            ends = [-1, -1]
        }
        wake = (ends[0], ends[1])
        handlesQuit = ends[1] >= 0 && lifeline_quit_signal_install(ends[1]) != 0
        guard wake.read >= 0 else {
            finished.signal()
            return
        }
        let thread = Thread { [self] in
            if handlesQuit { lifeline_quit_signal_unblock_here() }
            watch(session)
            finished.signal()
        }
        thread.name = "Lifeline hang watch"
        thread.start()
    }

    /// Changes the watchdog's period; `nil` turns it off.
    func setPeriod(_ period: Duration?) {
        self.period.withLock { $0 = period }
        send("W")
    }

    /// Stops the thread and waits for it, removing the `SIGQUIT` handler first: a `SIGQUIT`
    /// after recording stopped does what it did before. In a forked child, where the thread
    /// does not run, it only removes the handler.
    func stop() {
        if handlesQuit { lifeline_quit_signal_remove() }
        guard process == getpid() else { return }
        send("S")
        finished.wait()
        if wake.read >= 0 {
            close(wake.read)
            close(wake.write)
        }
    }

    private func send(_ byte: Character) {
        guard wake.write >= 0, var value = byte.asciiValue else { return }
        _ = write(wake.write, &value, 1)
    }

    /// The thread: waits on the pipe, for at most a fifth of the watchdog's period (50 ms to
    /// 1 s), and checks the counter each time it wakes.
    private func watch(_ session: RecordingSession) {
        var seen = session.lastSeq
        var since = ContinuousClock.now
        var checked: UInt64?
        while true {
            let period = self.period.withLock { $0 }
            let timeout = period.map { Self.milliseconds(min(max($0 / 5, .milliseconds(50)), .seconds(1))) } ?? -1
            var descriptor = pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, timeout)
            if ready > 0 {
                var bytes = [UInt8](repeating: 0, count: 64)
                let count = read(wake.read, &bytes, bytes.count)
                let received = bytes.prefix(max(count, 0))
                if received.contains(UInt8(ascii: "S")) { return }
                if received.contains(UInt8(ascii: "Q")) { session.recordHang(.signal) }
                continue
            }
            guard let period else { continue }
            let seq = session.lastSeq
            if seq != seen {
                (seen, since) = (seq, .now)
                continue
            }
            guard since.duration(to: .now) >= period, checked != seq else { continue }
            // Once per quiet stretch: whether or not it was a hang, the same stretch is not
            // read again.
            checked = seq
            session.recordHang(.watchdog, quietFor: period)
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        Int32(clamping: duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
