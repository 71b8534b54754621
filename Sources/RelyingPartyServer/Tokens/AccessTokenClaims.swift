import Foundation

/// The claims of an access token this deployment signed, as its verifier reads them back.
struct AccessTokenClaims: Decodable, Sendable {
    let iss: String
    let sub: String
    let aud: [String]
    let iat: Int64
    let nbf: Int64?
    let exp: Int64
    let sid: String
    let username: String?
    /// The app's own id of the account, when it had one at minting.
    let external_id: String?

    private enum CodingKeys: String, CodingKey {
        case iss, sub, aud, iat, nbf, exp, sid, username, external_id
    }

    init(from decoder: any Decoder) throws {
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
