import CMalloc

/// glibc's allocator settings for `passkeyd serve`, applied at its start before any thread runs.
///
/// By default glibc gives the free top of a thread's heap back to the kernel (`madvise(MADV_DONTNEED)`) whenever a
/// large free leaves more than the trim threshold (128 KiB) free there. Each sign-in's savepoint release in SQLite
/// made such a free on its worker's heap, so each one trimmed it: 3 % of the server's CPU in `heap_trim`, a TLB
/// shootdown interrupting the other cores each time, and page faults when the next ceremony took the memory back. A
/// fixed trim threshold of 64 MiB keeps that memory. A fixed trim threshold also stops glibc from raising its mmap
/// threshold (128 KiB) as large blocks come and go, so that one is fixed at 1 MiB: blocks up to that size stay on the
/// heap instead of an `mmap` and `munmap` each. An operator's own `MALLOC_TRIM_THRESHOLD_`, `MALLOC_MMAP_THRESHOLD_` or
/// `glibc.malloc` tunables win.
enum AllocatorTuning {
    static let trimThreshold: Int32 = 64 << 20
    static let mmapThreshold: Int32 = 1 << 20

    /// Applies both thresholds unless `environment` carries the operator's own; whether glibc took them.
    @discardableResult
    static func apply(environment: [String: String]) -> Bool {
        if environment["MALLOC_TRIM_THRESHOLD_"] != nil || environment["MALLOC_MMAP_THRESHOLD_"] != nil
            || environment["GLIBC_TUNABLES"]?.contains("glibc.malloc.") == true
        {
            return false
        }
        return mallopt(M_TRIM_THRESHOLD, trimThreshold) == 1 && mallopt(M_MMAP_THRESHOLD, mmapThreshold) == 1
    }
}
