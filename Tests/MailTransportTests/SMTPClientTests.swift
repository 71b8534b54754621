import Foundation
import TestSupport
import Testing

@testable import MailTransport

/// `SMTPClient` against a real SMTP server on loopback (aiosmtpd from PyPI, `make mail-deps`), with STARTTLS or TLS
/// under a certificate of a throwaway authority and AUTH: every message is parsed by Python's `email` package on the
/// other side. Every refusal (bad certificate, wrong password, 4xx and 5xx replies, no STARTTLS, a deadline) is shown.
@Suite(.serialized)
struct SMTPClientTests {
    static func client(
        _ relay: SMTPStandIn,
        security: SMTPSecurity? = nil,
        password: String = SMTPStandIn.password,
        caFile: String? = nil,
        timeout: Int = 10_000
    )
        throws -> SMTPClient
    {
        let security =
            security
            ?? {
                switch relay.security {
                case .starttls: .starttls
                case .tls: .tls
                case .plain: .plain
                }
            }()
        return try SMTPClient(
            configuration: SMTPConfiguration(
                host: "127.0.0.1",
                port: relay.port,
                security: security,
                username: relay.requiresAuthentication ? SMTPStandIn.user : nil,
                password: relay.requiresAuthentication ? password : nil,
                caFile: caFile ?? relay.caFile,
                heloName: "passkeyd.test",
                connectTimeoutMilliseconds: 5_000,
                timeoutMilliseconds: timeout
            )
        )
    }

    static func message(to recipient: String = "person@example.org", identifier: String = UUID().uuidString.lowercased()) throws -> MailMessage {
        try MailMessage(
            identifier: identifier,
            from: try MailAddress("no-reply@passkeyd.test", displayName: "Zoë from passkeyd"),
            to: try MailAddress(recipient),
            replyTo: try MailAddress("help@passkeyd.test"),
            subject: "Vérifiez votre adresse — 確認",
            text: "Your code is 123456.\n.\nOpen https://id.example.com/email/verify#token=abc\n",
            html: "<p>Your code is <b>123456</b>.</p>\n.\n<p><a href=\"https://id.example.com/email/verify\">Verify</a></p>\n",
            date: Date()
        )
    }

    @Test func starttlsWithAuthenticationDeliversAMessagePythonReadsBack() throws {
        let relay = try SMTPStandIn(security: .starttls)
        try relay.start()
        let message = try Self.message()
        try Self.client(relay).send(message)
        let received = relay.wait { $0.count == 1 }
        try #require(received.count == 1)
        let mail = received[0]
        #expect(mail.tls && mail.authenticated && mail.login == SMTPStandIn.user)
        #expect(mail.mailFrom == "no-reply@passkeyd.test" && mail.recipients == ["person@example.org"])
        #expect(mail.fromDisplayName == "Zoë from passkeyd" && mail.fromAddress == "no-reply@passkeyd.test")
        #expect(mail.to == "person@example.org" && mail.replyTo == "help@passkeyd.test")
        #expect(mail.subject == "Vérifiez votre adresse — 確認")
        #expect(mail.messageID == "<\(message.identifier)@passkeyd.test>")
        #expect(mail.dateParsed != nil)
        #expect(mail.contentType == "multipart/alternative")
        #expect(mail.text == message.text && mail.html == message.html)
        #expect(mail.defects.isEmpty)
    }

    @Test func implicitTLSDeliversAMessage() throws {
        let relay = try SMTPStandIn(security: .tls)
        try relay.start()
        try Self.client(relay).send(try Self.message())
        let received = relay.wait { $0.count == 1 }
        #expect(received.count == 1 && received.first?.tls == true && received.first?.authenticated == true)
    }

    @Test func plainSMTPToALoopbackRelayDeliversAMessage() throws {
        let relay = try SMTPStandIn(security: .plain, requiresAuthentication: false)
        try relay.start()
        try Self.client(relay).send(try Self.message())
        let received = relay.wait { $0.count == 1 }
        #expect(received.count == 1 && received.first?.tls == false)
    }

    @Test func plainSMTPToAnotherHostIsRefused() {
        #expect(throws: MailError(.configurationInvalid, "plain SMTP (no TLS) is allowed only to a loopback host")) {
            try SMTPClient(configuration: SMTPConfiguration(host: "smtp.example.com", port: 25, security: .plain))
        }
        #expect(throws: MailError.self) { try SMTPClient(configuration: SMTPConfiguration(host: "smtp.example.com/x", port: 25, security: .tls)) }
        #expect(throws: MailError.self) { try SMTPClient(configuration: SMTPConfiguration(host: "smtp.example.com", port: 0, security: .tls)) }
        #expect(throws: MailError.self) {
            try SMTPClient(configuration: SMTPConfiguration(host: "smtp.example.com", port: 587, security: .starttls, username: "user"))
        }
        #expect(throws: MailError.self) {
            try SMTPClient(configuration: SMTPConfiguration(host: "smtp.example.com", port: 587, security: .starttls, timeoutMilliseconds: 0))
        }
    }

    @Test func aRelayWithoutSTARTTLSIsRefusedWhenSTARTTLSIsRequired() throws {
        let relay = try SMTPStandIn(security: .plain, requiresAuthentication: false)
        try relay.start()
        #expect {
            try Self.client(relay, security: .starttls).send(try Self.message())
        } throws: { error in
            (error as? MailError)?.code == .tlsFailed && (error as? MailError)?.isPermanent == false
        }
        #expect(relay.received().isEmpty)
    }

    @Test func aCertificateOfAnUntrustedAuthorityIsRefused() throws {
        let relay = try SMTPStandIn(security: .starttls)
        try relay.start()
        let stranger = try TestCertificateAuthority(commonName: "another authority")
        #expect {
            try Self.client(relay, caFile: stranger.certificateFile).send(try Self.message())
        } throws: { error in
            (error as? MailError)?.code == .certificateInvalid
        }
        #expect(relay.received().isEmpty)
    }

    @Test func aCertificateForAnotherHostIsRefused() throws {
        let relay = try SMTPStandIn(security: .tls, certificateNames: ["smtp.elsewhere.test"])
        try relay.start()
        #expect {
            try Self.client(relay).send(try Self.message())
        } throws: { error in
            (error as? MailError)?.code == .certificateInvalid
        }
        #expect(relay.received().isEmpty)
    }

    @Test func aWrongPasswordIsATransientAuthenticationFailure() throws {
        let relay = try SMTPStandIn(security: .starttls)
        try relay.start()
        #expect {
            try Self.client(relay, password: "not the password").send(try Self.message())
        } throws: { error in
            guard let error = error as? MailError else { return false }
            return error.code == .authenticationFailed && !error.isPermanent && !error.reason.contains("not the password")
        }
        #expect(relay.received().isEmpty)
    }

    @Test func aRecipientRefusedWith5xxIsPermanent() throws {
        let relay = try SMTPStandIn(security: .starttls)
        try relay.start()
        try relay.misbehave(rcpt: 550)
        #expect {
            try Self.client(relay).send(try Self.message(to: "gone@example.org"))
        } throws: { error in
            guard let error = error as? MailError else { return false }
            return error.code == .rejectedPermanently && error.isPermanent && error.replyCode == 550 && !error.reason.contains("gone@example.org")
        }
    }

    @Test func aMessageRefusedWith4xxIsTransientAnd5xxPermanent() throws {
        let relay = try SMTPStandIn(security: .starttls)
        try relay.start()
        try relay.misbehave(data: 451)
        #expect {
            try Self.client(relay).send(try Self.message())
        } throws: { error in
            (error as? MailError).map { $0.code == .rejectedTemporarily && !$0.isPermanent && $0.replyCode == 451 } ?? false
        }
        try relay.misbehave(data: 554)
        #expect {
            try Self.client(relay).send(try Self.message())
        } throws: { error in
            (error as? MailError).map { $0.code == .rejectedPermanently && $0.isPermanent && $0.replyCode == 554 } ?? false
        }
        try relay.misbehave()
        try Self.client(relay).send(try Self.message())
        #expect(relay.wait { $0.count == 1 }.count == 1)
    }

    @Test func aRelayThatIsDownIsATransientConnectFailure() throws {
        let relay = try SMTPStandIn(security: .starttls)
        #expect {
            try Self.client(relay).send(try Self.message())
        } throws: { error in
            (error as? MailError).map { $0.code == .connectFailed && !$0.isPermanent } ?? false
        }
    }

    @Test func aSlowRelayMeetsTheDeadline() throws {
        let relay = try SMTPStandIn(security: .starttls)
        try relay.start()
        try relay.misbehave(delay: 5)
        let started = Date()
        #expect {
            try Self.client(relay, timeout: 1_000).send(try Self.message())
        } throws: { error in
            (error as? MailError).map { $0.code == .timeout && !$0.isPermanent } ?? false
        }
        // The send's deadline, then at most as long again for the QUIT on the way out.
        #expect(Date().timeIntervalSince(started) < 3)
    }
}
