import Foundation

/// The event of an Apple server-to-server notification (the inner object of the `events` claim).
public enum ServerNotificationEvent: Sendable, Equatable {
    /// `consent-revoked`: the user stopped using Sign in with Apple with the app.
    case consentRevoked(subject: String, time: Date)
    /// `account-delete`: the user deleted their Apple Account.
    case accountDeleted(subject: String, time: Date)
    /// `email-disabled`: the user stopped forwarding from their private relay address.
    case emailDisabled(subject: String, email: String, isPrivateEmail: Bool?, time: Date)
    /// `email-enabled`: the user resumed forwarding from their private relay address.
    case emailEnabled(subject: String, email: String, isPrivateEmail: Bool?, time: Date)

    /// The user the event concerns (`sub`).
    public var subject: String {
        switch self {
        case .consentRevoked(let subject, _), .accountDeleted(let subject, _),
            .emailDisabled(let subject, _, _, _), .emailEnabled(let subject, _, _, _):
            subject
        }
    }

    /// When the event happened (`event_time`).
    public var time: Date {
        switch self {
        case .consentRevoked(_, let time), .accountDeleted(_, let time),
            .emailDisabled(_, _, _, let time), .emailEnabled(_, _, _, let time):
            time
        }
    }

    /// `event_time` values at or above this are milliseconds (genuine notifications send milliseconds; Apple's
    /// documentation example shows seconds, and 10^11 seconds is the year 5138).
    static let millisecondThreshold = 100_000_000_000.0

    private enum CodingKeys: String, CodingKey {
        case type, sub, email
        case eventTime = "event_time"
        case isPrivateEmail = "is_private_email"
    }

    private struct Fields: Decodable {
        let type: String
        let subject: String
        let eventTime: Double
        let email: String?
        let isPrivateEmail: Bool?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            type = try container.decode(String.self, forKey: .type)
            subject = try container.decode(String.self, forKey: .sub)
            eventTime = try container.decode(Double.self, forKey: .eventTime)
            email = try container.decodeIfPresent(String.self, forKey: .email)
            isPrivateEmail = try container.decodeAppleBooleanIfPresent(forKey: .isPrivateEmail)
        }
    }

    /// Parses the JSON text carried in the `events` claim.
    init(json: String) throws(AppleSignInError) {
        // Apple: events is a JSON object, serialized into a string, with type, sub and event_time.
        let fields: Fields
        do {
            fields = try JSONDecoder().decode(Fields.self, from: Data(json.utf8))
        } catch {
            throw AppleSignInError(.notificationMalformed, "events is not an event object: \(ClaimDecodingFailure.describe(error))")
        }
        // Apple: sub identifies the user the event is about.
        guard !fields.subject.isEmpty else { throw AppleSignInError(.notificationMalformed, "event sub is empty") }
        guard fields.eventTime.isFinite, fields.eventTime >= 0 else {
            throw AppleSignInError(.notificationMalformed, "event_time is not a time")
        }
        let seconds = fields.eventTime >= Self.millisecondThreshold ? fields.eventTime / 1000 : fields.eventTime
        let time = Date(timeIntervalSince1970: seconds)
        switch fields.type {
        case "consent-revoked":
            self = .consentRevoked(subject: fields.subject, time: time)
        case "account-delete":
            self = .accountDeleted(subject: fields.subject, time: time)
        case "email-disabled", "email-enabled":
            // Apple: email events name the relay address whose forwarding changed.
            guard let email = fields.email, !email.isEmpty else {
                throw AppleSignInError(.notificationMalformed, "\(fields.type) event has no email")
            }
            self =
                fields.type == "email-disabled"
                ? .emailDisabled(subject: fields.subject, email: email, isPrivateEmail: fields.isPrivateEmail, time: time)
                : .emailEnabled(subject: fields.subject, email: email, isPrivateEmail: fields.isPrivateEmail, time: time)
        default:
            // Fail closed: an event type this code does not know is not silently treated as one it does.
            throw AppleSignInError(.unsupportedEvent, "event type \(fields.type.prefix(32)) is not supported")
        }
    }
}
