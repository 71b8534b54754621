import CryptoCore
import Foundation

/// Loads every PEM certificate from the files of a folder (`*.pem`, `*.crt`, top level only), for `TrustMaterial`.
package enum TrustAnchorDirectory {
    package static func load(_ path: String) throws(CryptoError) -> [X509Certificate] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            throw CryptoError(.invalidCertificate, "cannot read trust-anchor folder \(path)")
        }
        var anchors: [X509Certificate] = []
        for name in names.sorted() where name.hasSuffix(".pem") || name.hasSuffix(".crt") {
            guard let text = try? String(contentsOfFile: path + "/" + name, encoding: .utf8) else {
                throw CryptoError(.invalidCertificate, "cannot read \(name)")
            }
            do {
                anchors += try X509Certificate.certificates(pem: text)
            } catch {
                throw CryptoError(error.code, "\(name): \(error.reason)")
            }
        }
        return anchors
    }

    /// The certificates of a PEM file, or of every PEM file of a folder.
    package static func loadFileOrFolder(_ path: String) throws(CryptoError) -> [X509Certificate] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CryptoError(.invalidCertificate, "\(path) does not exist")
        }
        if isDirectory.boolValue { return try load(path) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CryptoError(.invalidCertificate, "cannot read \(path)")
        }
        return try X509Certificate.certificates(pem: text)
    }
}
