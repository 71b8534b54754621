#if canImport(Glibc)
import Glibc
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`), which bounds how many connections it can hold: each one is a
/// descriptor, and past the limit `accept` fails with `EMFILE`.
enum DescriptorLimit {
    /// Raises the soft limit to the hard limit (no privilege needed) and returns the soft limit now in force; when it
    /// cannot be raised (a system-call filter, say) the current one.
    static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return Int.max }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur == rlim_t.max ? Int.max : Int(clamping: limit.rlim_cur)
    }

    /// The soft limit in force now (an administrator may lower it while the server runs, with `prlimit`).
    static var current: Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return Int.max }
        return limit.rlim_cur == rlim_t.max ? Int.max : Int(clamping: limit.rlim_cur)
    }

    // RLIM_INFINITY is all ones (~0UL), which Swift does not import as a constant.
    private static var resource: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
