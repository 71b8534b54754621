import AccountEvents
import Accounts
import CryptoCore
import Foundation
import HTTPEdge
import Observability
import RateLimiting
import Storage
import WebAuthnCore

/// WebAuthn §7.2 on an assertion against the stored passkey: what a sign-in and a merge's passkey proof share. Takes
/// the assertion's challenge, runs the ceremony, flags a passkey whose counter did not increase, and counts failures
/// against the credential they name.
struct AssertionVerifier: Sendable {
    let store: any PasskeyStore
    let time: any TimeSource
    let challenges: ChallengeService
    let keys: CredentialKeyCache
    /// The passkeys of the sign-ins this node wrote (`verify(_:deferringSpend:keeping:)`, `keep(_:at:)`).
    let records: SignInRecordCache
    let decoys: DecoyCredentials
    let settings: SettingsInForce
    let limits: RequestLimits
    let metrics: ServerMetrics?
    let log: Logger

    /// What the server keeps with an authentication challenge issued for a username that names no account.
    struct AuthenticationContext: Codable {
        /// No credential may answer this challenge: it was issued for a username that names no account.
        var unknownUser: Bool
        /// The decoy credential IDs listed (base64url): an assertion naming one fails as a real passkey's would.
        var decoys: [String]?
    }

    /// An assertion whose challenge was opened: what its verification needs besides the stored passkey.
    struct Ceremony {
        let credential: AuthenticationResponseJSON
        let clientData: DecodedClientData
        let record: ChallengeRecord
        let rawID: [UInt8]
    }

    /// A verified assertion: the passkey it was verified against and what the ceremony found.
    struct VerifiedAssertion {
        /// The passkey as read for this assertion, or as this node kept it from an earlier sign-in (`isKept`).
        let stored: CredentialRecord
        let result: AuthenticationResult
        /// Whether `stored` is a record this node kept rather than read for this assertion.
        let isKept: Bool
        /// The record that spends the assertion's sealed challenge, for the ceremony's final commit to store; nil when
        /// the challenge was taken or spent already.
        let unspent: ChallengeRecord?
        /// The ceremony, to verify it again from a fresh read (`verifyAgain`).
        let ceremony: Ceremony

        /// What the verification assumed: the final write must find the stored passkey still holding it
        /// (`CeremonyStore.completeAuthentication`), read or kept alike.
        var expecting: SignInExpectation { SignInExpectation(stored) }

        /// The counter and flags to store for it at `now`.
        func update(at now: Date) -> AuthenticationUpdate {
            AuthenticationUpdate(
                credentialID: stored.id,
                signCount: result.signCount,
                backupEligible: result.backupEligible,
                backupState: result.backupState,
                usedAt: now,
                backupEligibilityChanged: result.backupEligibilityChanged
            )
        }
    }

    /// Takes the assertion's challenge and runs §7.2 on it against the stored passkey: what a sign-in and a merge proof
    /// share. A counter that did not increase flags the passkey before the refusal.
    ///
    /// A sealed challenge is spent at once, or with `deferringSpend` left to the caller's final commit
    /// (`VerifiedAssertion.unspent`). A refusal spends it before anything else, so that a replayed assertion is
    /// refused as `challenge_unknown` and never flags its passkey.
    ///
    /// With `keeping` (a sign-in, which keeps the passkey as its final write left it: `keep(_:at:)`), an assertion
    /// naming a kept passkey is verified against the kept record without a read. An assertion the kept record refuses
    /// is verified from a fresh read as any other, once: the same verdict is taken again without a second verification
    /// when the fresh record holds what the kept one gave it.
    ///
    /// Verified before any limit is consulted, so that no limit ever stops a valid assertion; a failed one counts
    /// against the credential it names (`429 rate_limited` past `perAccountBurst`). An assertion naming a credential
    /// this server does not have (a decoy, a deleted passkey, junk) runs the same steps against a key nobody holds and
    /// fails as a real passkey's junk assertion does: the same code, step and message.
    func verify(_ credential: AuthenticationResponseJSON, deferringSpend: Bool, keeping: Bool = false) throws(ServerError) -> VerifiedAssertion {
        let clientData = try RelyingPartyServer.clientData(credential.response.clientDataJSON)
        let opened = try challenges.open(clientData.parsed.challenge)
        var unspent = opened.unspent
        if !deferringSpend, let spent = unspent {
            try challenges.spend(spent)
            unspent = nil
        }
        guard let rawID = Base64URL.decode(credential.rawId) else {
            if let spent = unspent { try challenges.spend(spent) }
            throw ServerError(.credentialUnknown)
        }
        let ceremony = Ceremony(credential: credential, clientData: clientData, record: opened.record, rawID: rawID)
        var refusedByKept: (kept: CredentialRecord, error: WebAuthnError)?
        if keeping, let kept = records.record(for: rawID) {
            switch try attempt(ceremony, against: kept) {
            case .success(let result):
                return VerifiedAssertion(stored: kept, result: result, isKept: true, unspent: unspent, ceremony: ceremony)
            case .failure(let error):
                records.remove(rawID)
                refusedByKept = (kept, error)
            }
        }
        return try verifyRead(ceremony, unspent: unspent, refusedByKept: refusedByKept)
    }

    /// After the final write found that the passkey changed since the record the assertion was verified against, kept
    /// or read (`storage.credentialChanged`): forgets it and verifies the assertion again from a fresh read, as one
    /// without a kept record is, against the same challenge, which the refused write spent. A passkey deleted meanwhile
    /// is refused as any unknown credential is, one registered again with another key as any wrong signature is.
    func verifyAgain(_ assertion: VerifiedAssertion) throws(ServerError) -> VerifiedAssertion {
        records.remove(assertion.ceremony.rawID)
        return try verifyRead(assertion.ceremony, unspent: nil, refusedByKept: nil)
    }

    /// Keeps the passkey of a sign-in whose final write succeeded, as that write left it.
    func keep(_ assertion: VerifiedAssertion, at now: Date) {
        var written = assertion.stored
        written.signCount = assertion.result.signCount
        written.backupEligible = assertion.result.backupEligible
        written.backupState = assertion.result.backupState
        written.lastUsedAt = now
        records.keep(written)
    }

    /// `verify` from a fresh read of the passkey and its owner.
    private func verifyRead(
        _ ceremony: Ceremony,
        unspent: ChallengeRecord?,
        refusedByKept: (kept: CredentialRecord, error: WebAuthnError)?
    ) throws(ServerError) -> VerifiedAssertion {
        /// Spends a sealed challenge not spent yet: the first thing a refusal does.
        func spendBeforeRefusing() throws(ServerError) {
            if let spent = unspent { try challenges.spend(spent) }
        }
        /// The key a failure counts against: made only when one does (a digest and its text, on no sign-in's path).
        func failureKey() -> String { "credential:" + Base64URL.encode(DigestAlgorithm.sha256.hash(ceremony.rawID)) }
        // The passkey alone (on PostgreSQL through a pooler, a function planned once per server connection): a sign-in
        // answers the owner as its final write finds it.
        guard let stored = try storage({ try store.credential(id: ceremony.rawID) }) else {
            let error = failedUnknownCredential(ceremony.credential, rawID: ceremony.rawID, record: ceremony.record)
            try spendBeforeRefusing()
            try limits.take(.account, key: failureKey())
            throw error
        }
        let outcome: Result<AuthenticationResult, WebAuthnError>
        if let refusedByKept, refusedByKept.kept.userID == stored.userID, refusedByKept.kept.signCount == stored.signCount,
            SignInExpectation(refusedByKept.kept).holds(for: stored)
        {
            outcome = .failure(refusedByKept.error)  // the same inputs as the kept record's: the same verdict
        } else {
            outcome = try attempt(ceremony, against: stored)
        }
        switch outcome {
        case .success(let result):
            return VerifiedAssertion(stored: stored, result: result, isKept: false, unspent: unspent, ceremony: ceremony)
        case .failure(let error):
            try spendBeforeRefusing()
            log("authentication refused: \(error)", event: "ceremony")
            if error.code == .signCountNotIncreased {
                try markPossibleClone(stored)
            }
            try limits.take(.account, key: failureKey())
            throw .verification(error)
        }
    }

    /// §7.2 on the ceremony against `stored`, with no side effect.
    private func attempt(_ ceremony: Ceremony, against stored: CredentialRecord) throws(ServerError) -> Result<AuthenticationResult, WebAuthnError> {
        let key: COSEKey
        do {
            key = try keys.key(for: stored.id, encoded: stored.publicKey)
        } catch {
            throw ServerError(.internalError, detail: "a stored public key is unreadable: \(error)")
        }
        let expectations = AuthenticationExpectations(
            challenge: ceremony.record.challenge,
            credential: StoredCredential(
                id: stored.id,
                publicKey: key,
                signCount: stored.signCount,
                userHandle: stored.userHandle,
                backupEligible: stored.backupEligible
            ),
            userVerification: try UserVerificationRequirement(ceremony.record.userVerification),
            identifiedUserHandle: try identifiedUserHandle(ceremony.record, credential: stored)
        )
        do {
            return .success(
                try AuthenticationCeremony(relyingParty: settings.relyingParty)
                    .verify(ceremony.credential, clientData: ceremony.clientData, expecting: expectations)
            )
        } catch {
            return .failure(error)
        }
    }

    /// The refusal of an assertion naming a credential this server does not have: §7.2 run against a key whose private
    /// half nobody holds, owned by the challenge's user only when it is one of the decoys that user was shown. Never a
    /// success, whatever the ceremony says.
    private func failedUnknownCredential(_ credential: AuthenticationResponseJSON, rawID: [UInt8], record: ChallengeRecord) -> ServerError {
        let context = record.context.isEmpty ? nil : try? JSONDecoder().decode(AuthenticationContext.self, from: Data(record.context))
        let listed = context?.decoys?.contains(Base64URL.encode(rawID)) ?? false
        do {
            let expectations = AuthenticationExpectations(
                challenge: record.challenge,
                credential: StoredCredential(
                    id: rawID,
                    publicKey: decoys.key,
                    signCount: 0,
                    userHandle: listed ? decoys.nobodysUserHandle : decoys.strangersUserHandle,
                    backupEligible: nil
                ),
                userVerification: try UserVerificationRequirement(record.userVerification),
                identifiedUserHandle: record.userID ?? (context?.unknownUser == true ? decoys.nobodysUserHandle : nil)
            )
            _ = try AuthenticationCeremony(relyingParty: settings.relyingParty).verify(credential, expecting: expectations)
        } catch let error as WebAuthnError {
            log("authentication refused: \(error)")
            return .verification(error)
        } catch {
            return error as? ServerError ?? ServerError(.verificationFailed)
        }
        return .verification(WebAuthnError(.assertionInvalidSignature, "no credential with this ID is registered"))
    }

    /// A counter that did not increase may mean a cloned authenticator: the sign-in is refused, and the passkey is
    /// flagged for its owner (with its `passkey.clone_warning` event). The stored counter is kept (a store never
    /// lowers it).
    func markPossibleClone(_ stored: CredentialRecord) throws(ServerError) {
        metrics?.cloneWarnings.increment()
        let event = AccountEvent.passkeyCloneWarning(userID: stored.userID, credentialID: stored.id).event(at: time.now, random: challenges.random)
        try storage {
            try store.transaction { transaction throws(StorageError) in
                try transaction.recordAuthentication(
                    AuthenticationUpdate(
                        credentialID: stored.id,
                        signCount: stored.signCount,
                        backupEligible: stored.backupEligible,
                        backupState: stored.backupState,
                        usedAt: stored.lastUsedAt ?? stored.createdAt,
                        cloneWarning: true,
                        backupEligibilityChanged: false
                    )
                )
                try transaction.appendEvent(event)
            }
        }
    }

    /// The user handle of the user the ceremony identified before it started, as the credential's authenticator knows
    /// it: the handle the credential holds when the challenge's user owns it (a credential merged in from another
    /// account keeps its old handle), else the challenge's user (who then owns no such credential); nobody's handle
    /// when the username named no account; nil for discoverable sign-in.
    func identifiedUserHandle(_ record: ChallengeRecord, credential: CredentialRecord) throws(ServerError) -> [UInt8]? {
        if let userID = record.userID { return userID == credential.userID ? credential.userHandle : userID }
        guard !record.context.isEmpty else { return nil }
        guard let context = try? JSONDecoder().decode(AuthenticationContext.self, from: Data(record.context)) else {
            throw ServerError(.internalError, detail: "the stored authentication state is unreadable")
        }
        return context.unknownUser ? decoys.nobodysUserHandle : nil
    }
}
