import CLibEvent

#if canImport(Glibc)
import Glibc
#endif

/// An `eventfd`, non-blocking: any thread `signal`s it, and the thread whose loop watches it for reading (an `Event`
/// with `.read` and `.persist`) `drain`s it. Signals made before a drain are taken by it; the descriptor stays readable
/// until drained.
package struct WakeUpDescriptor {
    package let descriptor: Int32

    /// Opens the descriptor; nil when the system refused (`errno` says why).
    package init?() {
        let descriptor = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
    }

    /// Makes the descriptor readable (one `write`); callable from any thread while it is open.
    package func signal() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Takes every signal made so far (one `read`).
    package func drain() {
        var count: UInt64 = 0
        _ = read(descriptor, &count, MemoryLayout<UInt64>.size)
    }

    /// Closes the descriptor.
    package func close() {
        _ = Glibc.close(descriptor)
    }
}
