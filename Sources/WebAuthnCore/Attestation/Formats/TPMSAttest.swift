/// The TPMS_ATTEST structure ([TPMv2-Part2] §10.12.12) that a TPM signs, as carried in the `tpm` attestation
/// statement's `certInfo`. Only TPM_ST_ATTEST_CERTIFY attestations (TPMS_CERTIFY_INFO) are read.
struct TPMSAttest {
    /// TPM_GENERATED_VALUE: every structure a TPM generates starts with it.
    static let generatedValue: UInt32 = 0xFF54_4347
    /// TPM_ST_ATTEST_CERTIFY.
    static let certifyType: UInt16 = 0x8017

    let magic: UInt32
    let type: UInt16
    let qualifiedSigner: [UInt8]
    let extraData: [UInt8]
    /// TPMS_CLOCK_INFO: clock, resetCount, restartCount and safe. WebAuthn ignores it; `safe` is kept as the raw
    /// byte because real TPMs and the W3C test vector send values other than YES (1) and NO (0).
    let clock: UInt64
    let resetCount: UInt32
    let restartCount: UInt32
    let safe: UInt8
    let firmwareVersion: UInt64
    /// TPMS_CERTIFY_INFO.name: the Name of the certified object.
    let attestedName: [UInt8]
    /// TPMS_CERTIFY_INFO.qualifiedName.
    let attestedQualifiedName: [UInt8]

    /// Reads a complete TPMS_ATTEST; a type other than TPM_ST_ATTEST_CERTIFY, or trailing bytes, fail.
    init(bytes: [UInt8]) throws(WebAuthnError) {
        var reader = TPMByteReader(bytes, structure: "certInfo")
        magic = try reader.readUInt32()
        type = try reader.readUInt16()
        qualifiedSigner = try reader.readSizedBuffer()
        extraData = try reader.readSizedBuffer()
        clock = try reader.readUInt64()
        resetCount = try reader.readUInt32()
        restartCount = try reader.readUInt32()
        safe = try reader.readUInt8()
        firmwareVersion = try reader.readUInt64()
        // The attested union is read as TPMS_CERTIFY_INFO; the caller rejects any other type before using it.
        attestedName = try reader.readSizedBuffer()
        attestedQualifiedName = try reader.readSizedBuffer()
        try reader.finish()
    }
}
