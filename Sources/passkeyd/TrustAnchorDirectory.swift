import CryptoCore
import Foundation

/// Loads every PEM certificate from the files of a folder (`*.pem`, `*.crt`).
enum TrustAnchorDirectory {
    static func load(_ path: String) throws(CryptoError) -> [X509Certificate] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            throw CryptoError(code: "crypto.invalidCertificate", reason: "cannot read trust-anchor folder \(path)")
        }
        var anchors: [X509Certificate] = []
        for name in names.sorted() where name.hasSuffix(".pem") || name.hasSuffix(".crt") {
            guard let text = try? String(contentsOfFile: path + "/" + name, encoding: .utf8) else {
                throw CryptoError(code: "crypto.invalidCertificate", reason: "cannot read \(name)")
            }
            anchors += try X509Certificate.certificates(pem: text)
        }
        return anchors
    }
}
