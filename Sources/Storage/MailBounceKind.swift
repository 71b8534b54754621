/// What a provider reported about a message after the relay accepted it: a permanent failure (`hard`), a temporary one
/// (`soft`), or the recipient marking it as spam (`complaint`).
public enum MailBounceKind: String, Sendable, CaseIterable {
    case hard, soft, complaint

    /// Whether it stops further mail to the address (`MailSuppression`): a hard bounce or a complaint.
    public var suppresses: Bool { self != .soft }
}
