// Target `mail-events`: the readers of the providers' bounce and complaint webhooks — `MailgunNotification` (its
// `signature` block and `event-data`), `PostmarkNotification` (a `Bounce` or `SpamComplaint` record) and
// `ResendNotification` (`email.bounced`, `email.complained`) — and the
// `Message-ID` identifier reader, with the input as each body. Every refusal must be a `ServerError` with a stable
// code; what is read stays within its bounds.
import Email
import Foundation
import HTTPEdge
import Storage

@testable import RelyingPartyServer

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = bytes(data, size)
    do throws(ServerError) {
        let notification = try MailgunNotification(json: body)
        guard notification.signature.utf8.count == 64, (1...12).contains(notification.timestamp.utf8.count),
            notification.token.utf8.count <= MailgunNotification.maximumTokenLength
        else { fuzzFailure("a Mailgun signature block out of its bounds was read") }
        if let bounce = notification.bounce { check(bounce) }
    } catch {
        guard [ServerError.Code.invalidJSON, .invalidRequest].contains(error.code) else { fuzzFailure("Mailgun: \(error.code)") }
    }
    do throws(ServerError) {
        if let bounce = try PostmarkNotification(json: body).bounce {
            check(bounce)
            guard bounce.messageID == nil, bounce.recipient?.isEmpty == false else { fuzzFailure("a Postmark bounce without its recipient") }
        }
    } catch {
        guard [ServerError.Code.invalidJSON, .invalidRequest].contains(error.code) else { fuzzFailure("Postmark: \(error.code)") }
    }
    do throws(ServerError) {
        if let bounce = try ResendNotification(json: body).bounce {
            check(bounce)
            guard bounce.messageID == nil, bounce.recipient?.isEmpty == false else { fuzzFailure("a Resend bounce without its recipient") }
        }
    } catch {
        guard [ServerError.Code.invalidJSON, .invalidRequest].contains(error.code) else { fuzzFailure("Resend: \(error.code)") }
    }
    if let identifier = ProviderBounce.identifier(ofMessageID: String(decoding: body, as: UTF8.self)) {
        guard !identifier.isEmpty, identifier.utf8.count <= 64 else { fuzzFailure("a Message-ID identifier out of its bounds") }
    }
    return 0
}

private func check(_ bounce: ProviderBounce) {
    guard bounce.reason.utf8.count <= MailBounce.maximumReasonLength,
        !bounce.reason.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    else { fuzzFailure("a reason over its bound or with a control character") }
    guard (bounce.recipient?.utf8.count ?? 0) <= ProviderBounce.maximumAddressLength else { fuzzFailure("a recipient over its bound") }
    guard (bounce.messageID?.utf8.count ?? 0) <= 64 else { fuzzFailure("a Message-ID identifier over its bound") }
}
