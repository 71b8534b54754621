/// How `android-safetynet` attestation statements are judged.
public struct SafetyNetPolicy: Sendable {
    /// Refuse a statement whose `ctsProfileMatch` is false.
    public var requiresCTSProfileMatch: Bool
    /// How far `timestampMs` may lie from the verification time, in seconds; nil disables the freshness check.
    public var maximumTimestampSkew: Double?

    public init(requiresCTSProfileMatch: Bool = true, maximumTimestampSkew: Double? = 60) {
        self.requiresCTSProfileMatch = requiresCTSProfileMatch
        self.maximumTimestampSkew = maximumTimestampSkew
    }
}
