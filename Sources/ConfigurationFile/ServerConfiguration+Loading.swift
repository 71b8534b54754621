import ConfigurationReading
import Foundation

extension ServerConfiguration {
    /// Reads a JSON configuration file, parses it, and reads the files it names: the only part of the configuration
    /// that touches the file system.
    public static func load(path: String) throws(ConfigurationError) -> ServerConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(.unreadable, key: "", "cannot read the configuration file \(path)")
        }
        return try load(json: data)
    }

    /// Parses `data` (`init(json:)`) and reads the attestation trust material, the webhook CA files and the email password and templates it names.
    public static func load(json data: Data) throws(ConfigurationError) -> ServerConfiguration {
        var configuration = try ServerConfiguration(json: data)
        configuration.attestation.material = try TrustMaterial.load(configuration.attestation.sources)
        try configuration.loadWebhookCAFiles()
        try configuration.loadEmail()
        return configuration
    }
}
