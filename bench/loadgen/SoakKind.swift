/// The kinds of operation a soak run mixes, in the fixed proportions of `cycle`.
enum SoakKind: String, CaseIterable, Sendable {
    case registration
    case login
    case aasa
    case malformedJSON = "malformed-json"
    case wrongContentType = "wrong-content-type"
    case unknownRoute = "unknown-route"
    case wrongChallenge = "wrong-challenge"

    /// Twenty operations that every connection walks through in order, each from its own starting point:
    /// 6 logins, 5 AASA fetches, 3 registrations and 6 bad requests (2 malformed JSON, 2 wrong challenges,
    /// 1 wrong content type, 1 unknown route).
    static let cycle: [SoakKind] = [
        .login, .aasa, .registration, .login, .malformedJSON, .aasa, .login, .wrongChallenge, .aasa, .registration,
        .login, .wrongContentType, .aasa, .login, .malformedJSON, .registration, .aasa, .login, .unknownRoute, .wrongChallenge,
    ]

    /// A valid request must succeed; a bad one must get its expected 4xx.
    var isValid: Bool {
        self == .registration || self == .login || self == .aasa
    }

    /// What the server must answer: the status and, for errors, the `error` code.
    var expected: String {
        switch self {
        case .registration, .login: "200, 200 with a token"
        case .aasa: "200"
        case .malformedJSON: "400 invalid_json"
        case .wrongContentType: "415 unsupported_media_type"
        case .unknownRoute: "404 not_found"
        case .wrongChallenge: "400 challenge_unknown"
        }
    }
}
