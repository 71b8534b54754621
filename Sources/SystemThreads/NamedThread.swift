import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts the server's own threads (the event loops, the request workers, the background workers, the SQLite writer and
/// checkpointer, the signing-key listener, the hashing threads) as plain POSIX threads, each named on itself. Not Foundation's `Thread`: a name set on one of those from its own body was
/// lost whenever the thread ran before `start` had recorded it (Foundation then names no thread), which left the name of
/// the thread that started it (seen in CI on 2026-12-07).
package enum NamedThread {
    /// Why no thread started: `pthread_create`'s error, as text.
    package struct Failure: Error {
        package let reason: String
    }

    /// Runs `body` on a new thread named `name` (what `top -H`, `ps -L` and `perf` show for it; Linux keeps the first
    /// 15 bytes), which holds `body` (and what it captures) until it returns.
    package static func start(named name: String, _ body: @escaping @Sendable () -> Void) -> Result<pthread_t, Failure> {
        final class Body {
            let name: String
            let run: @Sendable () -> Void
            init(_ name: String, _ run: @escaping @Sendable () -> Void) {
                self.name = name
                self.run = run
            }
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Body(name, body)).toOpaque()
        let status = pthread_create(
            &thread,
            nil,
            { argument in
                guard let argument else { return nil }
                let body = Unmanaged<Body>.fromOpaque(argument).takeRetainedValue()
                // Foundation's setter on the thread itself reaches the system (`pthread_setname_np`, which Swift's
                // Glibc does not declare), and refuses more than 15 bytes.
                Thread.current.name = String(decoding: body.name.utf8.prefix(15), as: UTF8.self)
                body.run()
                return nil
            },
            context
        )
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return .failure(Failure(reason: "pthread_create: \(String(cString: strerror(status)))"))
        }
        return .success(thread)
    }

    /// As `start`, for a thread nobody joins: detached once started. False, and `body` not run, when none could start.
    package static func startDetached(named name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        guard case .success(let thread) = start(named: name, body) else { return false }
        pthread_detach(thread)
        return true
    }
}
