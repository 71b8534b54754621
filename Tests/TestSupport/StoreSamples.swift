import Foundation
import Storage

/// Sample records for store tests. Times have sub-second fractions so drivers must keep `Date` exactly.
public enum StoreSamples {
    /// A fixed "now" with a fractional part.
    public static let now = Date(timeIntervalSince1970: 1_780_000_000.123_456_7)

    /// A 32-byte user handle derived from `number`.
    public static func userID(_ number: UInt8) -> [UInt8] {
        [UInt8](repeating: number, count: 31) + [0xA0]
    }

    /// A user whose name, handle and app account token derive from `number`.
    public static func user(_ number: UInt8, name: String? = nil) -> UserRecord {
        UserRecord(
            id: userID(number),
            name: name ?? "user-\(number)-é✓",
            displayName: "User \(number) 🦊",
            appAccountToken: appAccountToken(number),
            createdAt: now.addingTimeInterval(-86_400.25)
        )
    }

    /// A version-4 UUID derived from `number`.
    public static func appAccountToken(_ number: UInt8) -> UUID {
        UUID(uuid: (number, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x46, 0x07, 0x88, 0x19, 0x2A, 0x3B, 0x4C, 0x5D, 0x6E, number))
    }

    /// A credential of the user `owner` with an ID derived from `number`.
    public static func credential(
        _ number: UInt8,
        owner: UInt8,
        createdAt: Date = now.addingTimeInterval(-3_600.5)
    ) -> CredentialRecord {
        CredentialRecord(
            id: [0xC0, number] + [UInt8](repeating: number &* 7, count: 62),
            userID: userID(owner),
            publicKey: [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x00] + [UInt8](repeating: number, count: 64),
            algorithm: -7,
            signCount: UInt32.max - UInt32(number),
            transports: ["internal", "hybrid"],
            aaguid: [UInt8](repeating: 0xAA, count: 15) + [number],
            backupEligible: true,
            backupState: false,
            attestationFormat: "packed",
            attestationSummary: #"{"type":"self","trustPath":[]}"#,
            name: "Key \(number) — laptop",
            createdAt: createdAt
        )
    }

    /// A challenge with bytes derived from `number`, expiring at `expiresAt`.
    public static func challenge(
        _ number: UInt8,
        userID: [UInt8]? = nil,
        expiresAt: Date = now.addingTimeInterval(300)
    ) -> ChallengeRecord {
        ChallengeRecord(
            challenge: [UInt8](repeating: number, count: 31) + [0xCC],
            ceremony: userID == nil ? .authentication : .registration,
            userID: userID,
            userVerification: "preferred",
            context: Array(#"{"username":"pending"}"#.utf8),
            expiresAt: expiresAt
        )
    }

    /// A spent sealed challenge: 48 bytes, as the server's are, kept until `expiresAt`.
    public static func spentChallenge(_ number: UInt8, expiresAt: Date = now.addingTimeInterval(600)) -> ChallengeRecord {
        ChallengeRecord(
            challenge: [UInt8](repeating: number, count: 48),
            ceremony: .spentAuthentication,
            userID: nil,
            userVerification: "preferred",
            context: [],
            expiresAt: expiresAt
        )
    }

    /// A sign-in's update of the passkey `credential(owner, owner: owner)`: its counter now `signCount`, used `now`.
    public static func signIn(owner: UInt8, signCount: UInt32, backupState: Bool = true) -> AuthenticationUpdate {
        AuthenticationUpdate(
            credentialID: credential(owner, owner: owner).id,
            signCount: signCount,
            backupEligible: true,
            backupState: backupState,
            usedAt: now,
            backupEligibilityChanged: false
        )
    }

    /// What a sign-in verified against `credential(number, owner: owner)` assumed, for `completeAuthentication`.
    public static func expecting(_ number: UInt8, owner: UInt8) -> SignInExpectation {
        SignInExpectation(credential(number, owner: owner))
    }

    /// A session of the user `owner` with a token hash and an ID derived from `number`, signed in by the owner's
    /// passkey `credential(owner, owner: owner)`, with every optional field but `lastUsedAt` set.
    public static func session(
        _ number: UInt8,
        owner: UInt8,
        expiresAt: Date = now.addingTimeInterval(3_600)
    ) -> SessionRecord {
        SessionRecord(
            tokenHash: [UInt8](repeating: number, count: 31) + [0x55],
            id: [UInt8](repeating: number, count: 15) + [0x1D],
            userID: userID(owner),
            method: .passkey,
            credentialID: credential(owner, owner: owner).id,
            userVerified: true,
            createdAt: now.addingTimeInterval(-60),
            authenticatedAt: now.addingTimeInterval(-90.5),
            expiresAt: expiresAt,
            userAgent: "Mozilla/5.0 (Macintosh) Safari/605.1.15 — café"
        )
    }

    /// A session of the user `owner` signed in by the Apple identity `subject`, without a user agent.
    public static func appleSession(_ number: UInt8, owner: UInt8, subject: String) -> SessionRecord {
        SessionRecord(
            tokenHash: [UInt8](repeating: number, count: 31) + [0x55],
            id: [UInt8](repeating: number, count: 15) + [0x1D],
            userID: userID(owner),
            method: .apple,
            appleSubject: subject,
            userVerified: false,
            createdAt: now.addingTimeInterval(-30),
            expiresAt: now.addingTimeInterval(3_600)
        )
    }

    /// An event of the user `owner` (or of nobody) with a payload and an ID (`eventID`) derived from `number`.
    public static func event(_ number: Int, owner: UInt8?, type: String = "passkey.renamed") -> NewEvent {
        NewEvent(
            id: eventID(number),
            type: type,
            userID: owner.map(userID),
            occurredAt: now.addingTimeInterval(Double(number) + 0.25),
            data: Array(#"{"n":\#(number),"text":"é✓"}"#.utf8)
        )
    }

    /// A version-7 UUID of `now`'s millisecond whose last 48 bits are `number`: distinct for distinct numbers.
    public static func eventID(_ number: Int) -> UUID {
        let milliseconds = UInt64(now.timeIntervalSince1970 * 1000)
        let time = (0..<6).map { UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - UInt64($0)))) }
        let tail = (0..<6).map { UInt8(truncatingIfNeeded: UInt64(number) >> (8 * (5 - UInt64($0)))) }
        let bytes = time + [0x70, 0x00, 0x80, 0x00] + tail
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
                bytes[12], bytes[13], bytes[14], bytes[15]
            )
        )
    }

    /// An Apple identity of the user `owner`, with every optional field set.
    public static func appleIdentity(_ subject: String, owner: UInt8, createdAt: Date = now.addingTimeInterval(-1_800.75)) -> AppleIdentityRecord {
        AppleIdentityRecord(
            subject: subject,
            userID: userID(owner),
            email: "\(subject)@privaterelay.appleid.com",
            emailVerified: true,
            isPrivateEmail: true,
            emailDisabled: false,
            realUserStatus: 2,
            transferSubject: "transfer-\(subject)",
            createdAt: createdAt
        )
    }

    /// A signing key `key-<number>` (ES256, a stand-in JWK and sealed key) published 900.25 s before `activatesAt`.
    public static func signingKey(_ number: UInt8, activatesAt: Date, retiresAt: Date? = nil, expiresAt: Date? = nil) -> SigningKeyRecord {
        SigningKeyRecord(
            id: "key-\(number)",
            algorithm: "ES256",
            publicJWK: Array(#"{"kty":"EC","kid":"key-\#(number)"}"#.utf8),
            sealedPrivateKey: [UInt8](repeating: number, count: 200),
            createdAt: activatesAt.addingTimeInterval(-900.25),
            activatesAt: activatesAt,
            retiresAt: retiresAt,
            expiresAt: expiresAt
        )
    }
}
