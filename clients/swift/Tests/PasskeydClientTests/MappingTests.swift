import Foundation
import XCTest

@testable import PasskeydClient

/// The pure mapping and the error codes, without a server.
final class MappingTests: XCTestCase {
    private func creationOptions(_ json: String) throws -> CreationOptions {
        try JSONDecoder.passkeyd.decode(CreationOptions.self, from: Data(json.utf8))
    }

    private let creation = """
        {"rp": {"id": "example.com", "name": "Example"}, "user": {"id": "AQIDBA", "name": "ada", "displayName": "Ada"},
         "challenge": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", "pubKeyCredParams": [{"type": "public-key", "alg": -8},
         {"type": "public-key", "alg": -7}], "timeout": 300000, "excludeCredentials": [{"type": "public-key", "id": "_-8"}],
         "authenticatorSelection": {"residentKey": "required", "requireResidentKey": true, "userVerification": "required"},
         "attestation": "none", "extensions": {"credProps": true}}
        """

    func testRegistrationRequestTakesTheOptionsExactValues() throws {
        let request = try PlatformRegistrationRequest(try creationOptions(creation))
        XCTAssertEqual(request.relyingPartyIdentifier, "example.com")
        XCTAssertEqual(request.challenge, Data(0..<32))
        XCTAssertEqual(request.userID, Data([1, 2, 3, 4]))
        XCTAssertEqual(request.name, "ada")
        XCTAssertEqual(request.displayName, "Ada")
        XCTAssertEqual(request.userVerificationPreference, "required")
        XCTAssertEqual(request.excludedCredentials, [Data([0xFF, 0xEF])])
    }

    func testRegistrationRequestRefusesWhatAPlatformAuthenticatorCannotUse() throws {
        let withoutES256 = creation.replacingOccurrences(of: #"{"type": "public-key", "alg": -7}"#, with: #"{"type": "public-key", "alg": -257}"#)
        for (json, why) in [
            (withoutES256, "ES256"),
            (creation.replacingOccurrences(of: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", with: "a+b/"), "challenge"),
            (creation.replacingOccurrences(of: #""id": "AQIDBA""#, with: #""id": """#), "user handle"),
            (creation.replacingOccurrences(of: #""id": "_-8""#, with: #""id": "*""#), "excluded"),
        ] {
            XCTAssertThrowsError(try PlatformRegistrationRequest(try creationOptions(json)), why) { error in
                XCTAssertEqual((error as? PasskeydError)?.code, .invalidOptions, why)
            }
        }
    }

    func testAssertionRequestTakesTheOptionsExactValues() throws {
        let json = #"{"challenge": "AQID", "rpId": "example.com", "allowCredentials": [{"type": "public-key", "id": "BAU"}], "timeout": 1}"#
        let request = try PlatformAssertionRequest(try JSONDecoder.passkeyd.decode(RequestOptions.self, from: Data(json.utf8)))
        XCTAssertEqual(request.relyingPartyIdentifier, "example.com")
        XCTAssertEqual(request.challenge, Data([1, 2, 3]))
        XCTAssertEqual(request.allowedCredentials, [Data([4, 5])])
        XCTAssertEqual(request.userVerificationPreference, "preferred")
    }

    func testResultsBecomeTheJSONPasskeydVerifies() throws {
        let registration = try PlatformRegistration(
            credentialID: Data([0xFB, 0xFF]),
            rawClientDataJSON: Data("{}".utf8),
            rawAttestationObject: Data([0xA0])
        )
        .response()
        let encoded = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: JSONEncoder.passkeyd.encode(registration)) as? [String: Any]
        )
        XCTAssertEqual(encoded["id"] as? String, "-_8")
        XCTAssertEqual(encoded["rawId"] as? String, "-_8")
        XCTAssertEqual(encoded["type"] as? String, "public-key")
        XCTAssertEqual(encoded["authenticatorAttachment"] as? String, "platform")
        let response = try XCTUnwrap(encoded["response"] as? [String: Any])
        XCTAssertEqual(response["clientDataJSON"] as? String, "e30")
        XCTAssertEqual(response["attestationObject"] as? String, "oA")
        XCTAssertEqual(response["transports"] as? [String], ["internal", "hybrid"])
        XCTAssertThrowsError(
            try PlatformRegistration(credentialID: Data([1]), rawClientDataJSON: Data("{}".utf8), rawAttestationObject: nil).response()
        ) { XCTAssertEqual(($0 as? PasskeydError)?.code, .incompleteCredential) }

        let assertion = try PlatformAssertion(
            credentialID: Data([1]),
            rawClientDataJSON: Data("{}".utf8),
            rawAuthenticatorData: Data([2]),
            signature: Data([3]),
            userID: Data()
        ).response()
        XCTAssertEqual(assertion.response.authenticatorData, "Ag")
        XCTAssertEqual(assertion.response.signature, "Aw")
        XCTAssertNil(assertion.response.userHandle, "an empty user handle is left out, as browsers do")
    }

    func testNonceHashIsLowercaseHexSHA256() {
        // FIPS 180-2's test vector.
        XCTAssertEqual(
            AppleSignInNonce(raw: "abc", expiresAt: Date()).hashed,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        )
    }

    func testExchangeSendsTheNameOnlyWhenAppleGaveOne() throws {
        let nonce = AppleSignInNonce(raw: "raw", expiresAt: Date())
        var empty = PersonNameComponents()
        empty.givenName = ""
        let without = try AppleSignInExchange(identityToken: Data("a.b.c".utf8), authorizationCode: Data(), fullName: empty, nonce: nonce)
        XCTAssertNil(without.fullName)
        XCTAssertNil(without.authorizationCode)
        let body = String(decoding: try JSONEncoder.passkeyd.encode(without), as: UTF8.self)
        XCTAssertEqual(body, #"{"identityToken":"a.b.c","rawNonce":"raw"}"#)
        XCTAssertThrowsError(try AppleSignInExchange(identityToken: nil, authorizationCode: nil, fullName: nil, nonce: nonce))
    }

    func testErrorBodiesMapToCodes() {
        let body = Data(#"{"error": "apple_identity_taken", "message": "m", "mergeToken": "t"}"#.utf8)
        let error = PasskeydError.answer(status: 409, body: body, retryAfter: nil)
        XCTAssertEqual(error.code, .appleIdentityTaken)
        XCTAssertEqual(error.mergeToken, "t")
        let unknown = PasskeydError.answer(status: 418, body: Data(#"{"error": "teapot", "message": "m"}"#.utf8), retryAfter: nil)
        XCTAssertEqual(unknown.code, .unrecognized)
        XCTAssertEqual(unknown.serverCode, "teapot")
        let spoofed = PasskeydError.answer(status: 400, body: Data(#"{"error": "client.network"}"#.utf8), retryAfter: nil)
        XCTAssertEqual(spoofed.code, .unrecognized, "a server cannot claim a client-side code")
        let html = PasskeydError.answer(status: 502, body: Data("<html>".utf8), retryAfter: nil)
        XCTAssertEqual(html.code, .invalidResponse)
    }

    /// The server codes of the enum are exactly those of the tables of docs/reference/errors.md (the API's and the HTTP
    /// layer's), which a server test compares with the code: a code added to the server fails here until the client
    /// knows it.
    func testServerCodesAreTheREADMEs() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/reference/errors.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let row = try NSRegularExpression(pattern: #"^\| `([a-z_]+)` \| [0-9]{3}|^\| `([a-z_]+)` \| any other"#, options: .anchorsMatchLines)
        let documented = Set(
            row.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match -> String? in
                for group in 1...2 {
                    if let range = Range(match.range(at: group), in: text) { return String(text[range]) }
                }
                return nil
            }
        )
        let known = Set(PasskeydError.Code.allCases.map(\.rawValue).filter { !$0.hasPrefix("client.") })
        XCTAssertFalse(documented.isEmpty)
        XCTAssertEqual(known.subtracting(documented), [], "codes docs/reference/errors.md does not list")
        XCTAssertEqual(documented.subtracting(known), [], "codes the client does not know")
    }
}
