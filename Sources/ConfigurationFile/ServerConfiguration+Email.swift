import ConfigurationReading
import Foundation

extension ServerConfiguration {
    /// Reads the files and environment variables `email` names: its password and its templates.
    package mutating func loadEmail(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigurationError) {
        try email?.load(environment: environment)
    }
}
