import ConfigurationReading
import CryptoCore
import Foundation
import MailTransport
import Storage

/// Turns a message kind and its values into a message for the outbox (`NewMail`): the templates rendered, the
/// configured sender, a `Message-ID` of a fresh UUID. The values are never logged; the rendered message is kept in the
/// outbox only until it is sent.
package struct MailComposer: Sendable {
    package let settings: EmailSettings
    package let templates: MailTemplateSet
    /// The relying party's name, `{{appName}}` in every template.
    package let appName: String
    package let random: any RandomSource

    package init(settings: EmailSettings, appName: String, random: any RandomSource) throws(ConfigurationError) {
        self.settings = settings
        if let loaded = settings.templates {
            templates = loaded
        } else {
            templates = try MailTemplateSet(folder: nil)
        }
        self.appName = appName
        self.random = random
    }

    /// The message of `kind` to `recipient`, or nil when that kind is switched off (`email.messages`) or the recipient
    /// is not an address passkeyd can send to.
    package func mail(_ kind: MailKind, to recipient: String, userID: [UInt8]?, values: [String: String], now: Date) -> NewMail? {
        guard settings.isEnabled(kind), let to = try? MailAddress(recipient) else { return nil }
        let parts = templates[kind]
        let all = values.merging(["appName": appName]) { given, _ in given }
        let identifier = random.uuid().lowercaseText
        guard
            let message = try? MailMessage(
                identifier: identifier,
                from: settings.from,
                to: to,
                replyTo: settings.replyTo,
                subject: parts.subject.render(all, escapingHTML: false).trimmingCharacters(in: .whitespacesAndNewlines),
                text: parts.text.render(all, escapingHTML: false),
                html: parts.html.render(all, escapingHTML: true),
                date: now
            )
        else { return nil }
        return NewMail(kind: kind.rawValue, recipient: to.address, userID: userID, messageID: identifier, message: message.rendered(), createdAt: now)
    }

    /// `2026-12-05 23:50 UTC`, for `{{time}}`.
    package static func timeText(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: date)
    }
}
