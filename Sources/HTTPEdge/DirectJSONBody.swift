import JSON

/// A response body that writes itself through `JSONObjectWriter` instead of Foundation's `JSONEncoder`, for the
/// answers of every sign-in ceremony (the request options and the signed-in body) and the event payloads: the encoder
/// was 6.1 % of the server's samples under sign-ins. `JSONBody.encode` picks this over `Encodable` where the type conforms.
///
/// The text must read as `JSONBody`'s encoder would write it: the same members in its sorted order, a nil optional
/// left out, dates as `RFC3339Timestamp.seconds`. `DirectJSONBodyTests` compares the two for each conforming type.
package protocol DirectJSONBody: Encodable {
    func write(to object: inout JSONObjectWriter)
}
