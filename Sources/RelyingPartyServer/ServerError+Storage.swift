import Storage

extension ServerError {
    /// The storage → server mapping: conflicts are the client's; anything else is ours (503, retryable, the detail
    /// for the log only).
    static func storage(_ error: StorageError) -> ServerError {
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
        default: storageUnavailable(error)
        }
    }

    /// `storage_unavailable` for the driver's error: the message says what failed when the driver could tell (no
    /// space, read-only, timed out, unreachable); the driver's reason is the detail for the log.
    static func storageUnavailable(_ error: StorageError) -> ServerError {
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
    static let storageRetryAfterSeconds = 5

    /// The `Retry-After` header a `storage_unavailable` answer (JSON or an error page) carries, unless it has its own.
    var storageRetryAfter: (name: String, value: String)? {
        guard code == .storageUnavailable, !headers.contains(where: { $0.0.lowercased() == "retry-after" }) else { return nil }
        return ("Retry-After", String(Self.storageRetryAfterSeconds))
    }
}
