/// WebAuthn `UserVerificationRequirement` (§5.8.6).
public enum UserVerificationRequirement: String, Sendable, Codable {
    case required, preferred, discouraged
}
