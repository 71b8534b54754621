import CLibEvent

#if canImport(Glibc)
import Glibc
#endif

/// One-time process set-up before any libevent base exists, for the server's loops and the client's alike.
package enum LibEventSetup {
    /// libevent's pthread locking, and SIGPIPE ignored (a write to a connection the peer already closed would
    /// otherwise raise it); false when libevent refused the locking.
    package static let isReady: Bool = {
        signal(SIGPIPE, SIG_IGN)
        return evthread_use_pthreads() == 0
    }()
}
