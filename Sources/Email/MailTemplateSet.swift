import ConfigurationReading
import Foundation
import MailTransport

/// The templates of every message: the subject, the plain text and the HTML of each `MailKind`, from
/// `email.templates` (a folder) where a file is there, else the shipped defaults (`DefaultMailTemplates`).
package struct MailTemplateSet: Sendable {
    package struct Parts: Sendable {
        package let subject: MailTemplate
        package let text: MailTemplate
        package let html: MailTemplate
    }

    private let parts: [MailKind: Parts]

    /// Parses every template; a file of `folder` replaces the default of the same name. Throws for a malformed
    /// template or a file that cannot be read, naming the file.
    package init(folder: String?) throws(ConfigurationError) {
        var parts: [MailKind: Parts] = [:]
        for kind in MailKind.allCases {
            func template(_ suffix: String, _ fallback: String) throws(ConfigurationError) -> MailTemplate {
                let name = kind.rawValue + suffix
                var source = fallback
                if let folder, FileManager.default.fileExists(atPath: folder + "/" + name) {
                    guard let data = FileManager.default.contents(atPath: folder + "/" + name), let text = String(data: data, encoding: .utf8) else {
                        throw ConfigurationError(.invalidFile, key: "email.templates", "cannot read \(name) as UTF-8 text")
                    }
                    source = suffix == ".subject.txt" ? text.trimmingCharacters(in: .whitespacesAndNewlines) : text
                }
                do throws(MailError) {
                    return try MailTemplate(source, names: kind.names)
                } catch {
                    throw ConfigurationError(.invalidFile, key: "email.templates", "\(name): \(error.reason)")
                }
            }
            let defaults = DefaultMailTemplates.parts(of: kind)
            parts[kind] = Parts(
                subject: try template(".subject.txt", defaults.subject),
                text: try template(".txt", defaults.text),
                html: try template(".html", defaults.html)
            )
        }
        self.parts = parts
    }

    package subscript(kind: MailKind) -> Parts { parts[kind]! }
}
