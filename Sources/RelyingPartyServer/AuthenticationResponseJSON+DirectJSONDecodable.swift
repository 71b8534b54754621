import HTTPEdge
import JSON
import WebAuthnCore

extension AuthenticationResponseJSON: DirectJSONDecodable {
    /// The members in the order the synthesized `init(from:)` reads them, so that the first refusal is the same.
    package init(tree: JSONValue) throws(DecodingError) {
        let object = try JSONTreeObject(tree)
        let id = try object.string("id")
        let rawId = try object.string("rawId")
        let type = try object.string("type")
        let members = try object.object("response")
        let response = AuthenticatorAssertionResponseJSON(
            clientDataJSON: try members.string("clientDataJSON"),
            authenticatorData: try members.string("authenticatorData"),
            signature: try members.string("signature"),
            userHandle: try members.optionalString("userHandle")
        )
        let attachment = try object.optionalString("authenticatorAttachment")
        let extensions = try object.optionalObject("clientExtensionResults").map { extensions throws(DecodingError) in
            ClientExtensionResults(
                credProps: try extensions.optionalObject("credProps").map { properties throws(DecodingError) in
                    ClientExtensionResults.CredentialProperties(rk: try properties.optionalBool("rk"))
                }
            )
        }
        self.init(id: id, rawId: rawId, type: type, response: response, authenticatorAttachment: attachment, clientExtensionResults: extensions)
    }
}
