/// How the connection to the relay is protected.
public enum SMTPSecurity: String, Sendable, Equatable, CaseIterable {
    /// `smtp://`, upgraded with STARTTLS before anything else is said; a relay that does not offer it is refused.
    case starttls
    /// `smtps://`: TLS from the first byte (port 465).
    case tls
    /// `smtp://` without TLS: only to a loopback host (a local MTA), never across a network.
    case plain
}
