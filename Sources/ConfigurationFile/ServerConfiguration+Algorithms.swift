import ConfigurationReading
import WebAuthnCore

extension ServerConfiguration {
    /// The `algorithms` list: the COSE algorithms offered, by name, in order of preference; not empty.
    package mutating func parseAlgorithms(_ names: [String]) throws(ConfigurationError) {
        var chosen: [COSEAlgorithm] = []
        for name in names {
            guard let algorithm = Self.algorithmNames[name] else {
                throw ConfigurationError(
                    .invalidValue,
                    key: "algorithms",
                    "\(name) is not one of \(Self.algorithmNames.keys.sorted().joined(separator: ", "))"
                )
            }
            chosen.append(algorithm)
        }
        guard !chosen.isEmpty else { throw ConfigurationError(.invalidValue, key: "algorithms", "must not be empty") }
        algorithms = chosen
    }

    package static let algorithmNames: [String: COSEAlgorithm] = [
        "ES256": .es256, "ES384": .es384, "ES512": .es512, "EdDSA": .eddsa, "Ed25519": .ed25519, "RS256": .rs256,
        "RS384": .rs384, "RS512": .rs512, "PS256": .ps256, "PS384": .ps384, "PS512": .ps512, "RS1": .rs1,
    ]
}
