import Foundation

/// The claims of an access token this deployment signed, as its verifier reads them back.
public struct AccessTokenClaims: Decodable, Sendable {
    public let iss: String
    public let sub: String
    public let aud: [String]
    public let iat: Int64
    public let nbf: Int64?
    public let exp: Int64
    public let sid: String
    public let username: String?
    /// The app's own id of the account, when it had one at minting.
    public let external_id: String?

    private enum CodingKeys: String, CodingKey {
        case iss, sub, aud, iat, nbf, exp, sid, username, external_id
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iss = try container.decode(String.self, forKey: .iss)
        sub = try container.decode(String.self, forKey: .sub)
        // RFC 7519 §4.1.3: aud is one string or a list of strings.
        if let single = try? container.decode(String.self, forKey: .aud) {
            aud = [single]
        } else {
            aud = try container.decode([String].self, forKey: .aud)
        }
        iat = try container.decode(Int64.self, forKey: .iat)
        nbf = try container.decodeIfPresent(Int64.self, forKey: .nbf)
        exp = try container.decode(Int64.self, forKey: .exp)
        sid = try container.decode(String.self, forKey: .sid)
        username = try container.decodeIfPresent(String.self, forKey: .username)
        external_id = try container.decodeIfPresent(String.self, forKey: .external_id)
    }
}
