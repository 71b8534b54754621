#if canImport(Glibc)
import Glibc
#endif

/// Starts the plain POSIX thread an event loop runs on (not a Dispatch or Foundation thread: it blocks in
/// `event_base_loop` for its whole life).
package enum LoopThread {
    /// Why no thread started: `pthread_create`'s error, as text.
    package struct Failure: Error {
        package let reason: String
    }

    /// Runs `body` on a new thread, which holds it (and what it captures) until it returns.
    package static func start(_ body: @escaping @Sendable () -> Void) -> Result<pthread_t, Failure> {
        final class Body {
            let run: @Sendable () -> Void
            init(_ run: @escaping @Sendable () -> Void) { self.run = run }
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let status = pthread_create(
            &thread,
            nil,
            { argument in
                guard let argument else { return nil }
                Unmanaged<Body>.fromOpaque(argument).takeRetainedValue().run()
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
}
