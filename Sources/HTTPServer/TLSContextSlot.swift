import CryptoCore
import Synchronization

/// The TLS context an HTTPS listener makes new connections from, replaceable while the server runs (a renewed
/// certificate on `SIGHUP`). A connection keeps the context it was made from (its `SSL` holds a reference to the
/// `SSL_CTX`), so connections already open carry on with the old certificate while new ones get the new one.
final class TLSContextSlot: Sendable {
    private let context: Mutex<TLSServerContext>

    init(_ context: TLSServerContext) {
        self.context = Mutex(context)
    }

    /// The context new connections are made from.
    var current: TLSServerContext {
        context.withLock { $0 }
    }

    /// Makes `replacement` the context of every connection accepted from now on.
    func replace(with replacement: TLSServerContext) {
        context.withLock { $0 = replacement }
    }
}
