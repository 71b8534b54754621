import Testing

@testable import passkeyd

/// `passkeyd serve` fixes glibc's trim and mmap thresholds, unless the operator tuned the allocator already.
@Suite struct AllocatorTuningTests {
    @Test func glibcTakesBothThresholds() {
        #expect(AllocatorTuning.apply(environment: [:]))
        #expect(AllocatorTuning.apply(environment: ["GLIBC_TUNABLES": "glibc.pthread.rseq=0"]), "another tunable is not the allocator's")
    }

    @Test(arguments: [
        ["MALLOC_TRIM_THRESHOLD_": "131072"], ["MALLOC_MMAP_THRESHOLD_": "131072"], ["GLIBC_TUNABLES": "glibc.malloc.trim_threshold=131072"],
    ])
    func anOperatorsOwnSettingsWin(environment: [String: String]) {
        #expect(!AllocatorTuning.apply(environment: environment))
    }
}
