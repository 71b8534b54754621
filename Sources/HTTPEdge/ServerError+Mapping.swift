import Storage
import WebAuthnCore

extension ServerError {
    /// The core → server mapping: the commonest verification failures get their own code, every other step is
    /// `verification_failed`; `step` names the step, the core's reason is for the log.
    package static func verification(_ error: WebAuthnError) -> ServerError {
        let code: Code =
            switch error.code {
            case .userNotVerified: .userVerificationRequired
            case .signCountNotIncreased: .possibleClone
            case .algorithmNotAllowed: .algorithmNotAllowed
            case .originMismatch, .topOriginMismatch, .crossOriginNotAllowed: .originMismatch
            default: .verificationFailed
            }
        var mapped = ServerError(code, detail: error.reason)
        mapped.step = error.code.rawValue
        return mapped
    }

    /// A signature counter that did not increase (§7.2 step 23), found by the verification or by the store's write.
    package static func possibleClone(step: StorageError.Code) -> ServerError {
        var error = ServerError(.possibleClone)
        error.step = step.rawValue
        return error
    }

    /// The storage → server mapping: conflicts are the client's; anything else is ours (503, retryable, the detail
    /// for the log only).
    package static func storage(_ error: StorageError) -> ServerError {
        switch error.code {
        case .usernameTaken: ServerError(.usernameTaken)
        case .externalIDTaken: ServerError(.externalIdTaken)
        case .credentialExists: ServerError(.credentialExists)
        case .appleIdentityTaken: ServerError(.appleIdentityTaken)
        case .federatedIdentityTaken: ServerError(.identityTaken)
        case .notFound: ServerError(.notFound)
        // A sealed challenge another request spent first, here or on another node.
        case .challengeSpent: ServerError(.challengeUnknown)
        // A sign-in that verified, into an account an admin disabled (here or on another node).
        case .userDisabled: ServerError(.accountDisabled)
        // A passkey that changed under a sign-in's write, after the sign-in verified it again (`passkey_changed`).
        case .credentialChanged: ServerError(.passkeyChanged)
        default: storageUnavailable(error)
        }
    }

    /// `storage_unavailable` for the driver's error: the message says what failed when the driver could tell (no
    /// space, read-only, timed out, unreachable); the driver's reason is the detail for the log.
    package static func storageUnavailable(_ error: StorageError) -> ServerError {
        var mapped = ServerError(.storageUnavailable, detail: error.description)
        switch error.outage {
        case .noSpace: mapped.message = "The server's database is out of disk space; try again later."
        case .readOnly: mapped.message = "The server's database is read-only and takes no changes; try again later."
        case .timedOut: mapped.message = "The server's database did not answer in time; try again shortly."
        case .unreachable: mapped.message = "The server cannot reach its database; try again shortly."
        case nil: break
        }
        return mapped
    }

    /// The `Retry-After` of every `storage_unavailable` answer, in seconds: a few, so that clients come back once a
    /// lock is released, a connection made again or a node failed over, without hammering a database that struggles.
    package static let storageRetryAfterSeconds = 5
}
