import JSON

/// A request body that reads itself from the strict parser's tree (`JSONTreeObject`) instead of through the `Decoder`
/// protocol (`JSONValueDecoder`), for the body of every sign-in (`AuthenticationResponseJSON`): the protocol's boxed
/// containers and generic lookups were 2.0 % of the server's samples under sign-ins. `JSONBody.decode` picks this over
/// `Decodable` where the type conforms. The outcome must be the decoder's, value for value and refusal for refusal:
/// `JSONValueDecoderTests` runs the three over the same bodies.
package protocol DirectJSONDecodable: Decodable {
    init(tree: JSONValue) throws(DecodingError)
}
