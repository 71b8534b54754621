/// The command-line help text.
enum Usage {
    static let text = """
        usage:
          \(ServeCommand.syntax.usage)
              Run the relying-party server in the foreground (HTTPS on localhost:8443 with embedded defaults).
              --listen (else the environment's PASSKEYD_LISTEN) replaces the file's HTTPS listener, PASSKEYD_DATA its
              data folder (an absolute path). Exit status: 0 when stopped, 2 on a bad --listen or environment value,
              1 when it cannot start otherwise.
          \(HealthCheckCommand.syntax.usage)
              GET /readyz of the configured local listener (or URL) within 3 s, for a container's health check.
              Exit status: 0 when ready, 1 otherwise, 2 on a bad command line.
          \(MigrateCommand.syntax.usage)
              Copy a single node's SQLite database into an empty PostgreSQL database (libpq connection string), in one
              transaction, with the secrets server-secret and apple-refresh-token-key from DIR (default: the SQLite
              file's folder). Run it with passkeyd stopped. Exit status: 0 when copied, 1 on failure (nothing copied).
          \(BackupCommand.syntax.usage)
              Copy the configured SQLite database (a consistent snapshot, while the server serves) with the data
              folder's secrets and self-signed TLS pair into the new folder DEST (0700, files 0600), with
              manifest.json (release, schema version, time, SHA-256 of each file). On PostgreSQL the data and the
              secrets are in the database: it writes the manifest only; back the database up with pg_dump.
              Exit status: 0 when written, 1 on failure, 2 on a bad command line.
          \(RestoreCommand.syntax.usage)
              Put a backup back into the configured data folder of a stopped node (refused while passkeyd serve holds
              it, or when the folder has a database, unless --replace moves it to before-restore-TIME/). Checks every
              file's SHA-256 and the schema version (an older one is migrated, a newer one refused), ends every
              session, OpenID grant, enrollment link and outstanding challenge of the backup, and holds the folder for
              one challenge lifetime. Exit status: 0 when restored, 1 when refused or failed, 2 on a bad command line.
          \(RestoreCommand.postgresSyntax.usage)
              After pg_restore of a dump into the configured PostgreSQL database, before any node starts: migrate it,
              end its sessions, grants, links and challenges as a restore does, and wait one challenge lifetime.
          \(AppleCommand.transferOutSyntax.usage)
          \(AppleCommand.transferInSyntax.usage)
              Apple's user migration when the app moves to another developer team, on the configured store with the
              configured Apple key: transfer-out (sending team) stores each Apple identity's transfer identifier for
              TEAMID; transfer-in (recipient team) exchanges them for this team's user IDs and re-keys the identities.
              Resumable and idempotent: run again to finish or retry. At most N calls to Apple a second (default 10).
              Exit status: 0 when every identity is done, 1 when some failed or it could not run, 2 on a bad command line.
          \(AdminCommand.all.map(\.usage).joined(separator: "\n  "))
              The admin API's operations on the configured store (works with the server stopped; a deletion still
              queues the Apple revocations and appends its events). --json prints the admin API's JSON. import reads
              its file a piece at a time and writes --batch-size users (default 1000) per transaction, with progress on
              standard error; stopped half-way, the same command imports the rest.
              Exit status: 0 when done, 1 when refused (the error code on standard error), 2 on a bad command line.
          \(NewKeyCommand.Kind.admin.syntax.usage)
              Make an admin key for listen.admin and print it once, with the admin.keys entry (its SHA-256) to paste.
          \(VerifyCommand.syntax.usage)
              Verify WebAuthn responses offline. FILE (or standard input) holds one case, a JSON array of cases or
              {"cases": [...]} in the schema of TestVectors/PROVENANCE.md. Prints one JSON line per case.
              --metadata judges registrations also with the FIDO metadata BLOB's roots and status reports for each
              authenticator (the BLOB must chain to --metadata-root, e.g. TrustAnchors/metadata) and names them;
              --authenticator-names names them from a list such as TrustAnchors/aaguid-names.json. Nothing is read
              unless given.
              Exit status: 0 when it ran (whatever the verdicts), 2 on unreadable input.
          \(VerifyAppleTokenCommand.syntax.usage)
              Verify one Sign in with Apple identity token offline against a saved Apple JWKS, at TIME (ISO 8601,
              default now). The nonce policy is required: --raw-nonce N demands nonce = hex SHA-256(N) (a token saying
              nonce_supported false may omit it); --nonce-optional accepts any nonce or none.
              Prints one JSON line: {"ok", "error"/"reason" or "sub", "email", "emailVerified", "isPrivateEmail",
              "realUserStatus"}. Exit status: 0 when it ran (whatever the verdict), 2 on unusable input.
          \(CheckDomainCommand.syntax.usage)
              Check a domain's associated-domain files as devices fetch them: apple-app-site-association, assetlinks.json,
              webauthn and passkey-endpoints under /.well-known/ (certificate verified against the system roots or --ca-file,
              no redirect followed), their status, type, size and schema, the apps given (--app for webcredentials,
              --android with the SHA-256 of the signing certificate), and Apple's CDN copy (--cdn-url overrides
              https://app-site-association.cdn-apple.com/a/v1/DOMAIN). Prints one line per check, or JSON with --json.
              Exit status: 0 when everything holds, 1 when something is wrong, 2 when it could not run.
          \(KeysCommand.listSyntax.usage)
          \(KeysCommand.rotateSyntax.usage)
              The access-token signing keys of the deployment the configuration names (its database and server
              secret): list them with their state (pending, signing, retired, expired) and times, or make a new one
              that signs after one token lifetime (--immediately: at once), retiring the one it replaces (published
              until its tokens have expired). Exit status: 0 when done, 1 on failure, 2 on a bad command line.
          \(NewKeyCommand.Kind.backend.syntax.usage)
              Print a new random backend key for POST /introspect and the "backends" entry (its SHA-256) to paste
              into the configuration. Nothing is stored.
          passkeyd version (or --version)
              Print the version.
        Options take their value as the next argument or after "=" (--config=FILE); after "--" every argument is
        a file or a token, even one that starts with "--".
        """
}
