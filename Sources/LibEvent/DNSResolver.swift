import CLibEvent

#if canImport(Glibc)
import Glibc
#endif

/// The C callback of a lookup: libevent's result (0, or an `EVUTIL_EAI_*` error), the addresses (freed with
/// `DNSResolver.free`) and the argument.
package typealias DNSLookupCallback = @convention(c) (Int32, UnsafeMutablePointer<addrinfo>?, UnsafeMutableRawPointer?) -> Void

/// libevent's asynchronous resolver (`evdns_base`) on one base, with the system's configuration (/etc/resolv.conf,
/// /etc/hosts); it keeps no descriptor open while idle. Used on its loop's thread.
package struct DNSResolver {
    @usableFromInline package let pointer: OpaquePointer

    /// A resolver on `base`, reading `extraHostsFile` after the system's hosts file when given.
    package init?(base: EventBase, extraHostsFile: String? = nil) {
        guard let pointer = evdns_base_new(base.pointer, EVDNS_BASE_INITIALIZE_NAMESERVERS | EVDNS_BASE_DISABLE_WHEN_INACTIVE) else {
            return nil
        }
        if let extraHostsFile { _ = evdns_base_load_hosts(pointer, extraHostsFile) }
        self.pointer = pointer
    }

    /// Frees it; with `failingLookups`, the lookups in progress get their callback (cancelled) first.
    package func free(failingLookups: Bool) {
        evdns_base_free(pointer, failingLookups ? 1 : 0)
    }

    /// Looks up `host`'s TCP addresses; `callback` gets them with `argument`, possibly before this returns (then the
    /// result is nil). The lookup can be cancelled until its callback ran.
    package func resolve(_ host: String, _ callback: DNSLookupCallback, argument: UnsafeMutableRawPointer?) -> Lookup? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        return evdns_getaddrinfo(pointer, host, nil, &hints, callback, argument).map(Lookup.init)
    }

    /// Frees the addresses a lookup's callback got.
    package static func free(_ addresses: UnsafeMutablePointer<addrinfo>) {
        evutil_freeaddrinfo(addresses)
    }

    /// The text of a lookup's error result.
    package static func errorText(_ result: Int32) -> String {
        String(cString: evutil_gai_strerror(result))
    }

    /// A lookup in progress.
    package struct Lookup {
        @usableFromInline package let pointer: OpaquePointer

        /// Cancels it: its callback still runs (with a cancel error).
        package func cancel() {
            evdns_getaddrinfo_cancel(pointer)
        }
    }
}
