import Foundation
import Storage
import Testing

@testable import UserImport

/// passkeyd's own export read line by line: the header first, each line's type and members strict, every refusal a
/// stable code with its line and member, the account rules applied to every name and address in the file's order.
struct AdminExportReaderTests {
    static let header = #"{"type":"passkeyd.export","version":1,"relyingPartyId":"example.com","exportedAt":"2026-03-01T12:00:00.000Z"}"#
    static let ann =
        #"{"type":"user","id":"AQ","username":"ann","displayName":"Ann","displayNameIsDefault":false,"appAccountToken":"6F9619FF-8B86-D011-B42D-00C04FC964FF","email":"ann@example.com","emailVerified":true,"createdAt":"2026-03-01T12:00:00.250Z"}"#

    static func parse(_ lines: [String], rules: AccountFieldRulesDouble = AccountFieldRulesDouble()) throws(UserImportError) -> AdminExport.Batch {
        var reader = AdminExport.Reader(relyingPartyID: "example.com", now: Date(timeIntervalSince1970: 0), rules: rules)
        var batch = AdminExport.Batch()
        let body = Array(lines.joined(separator: "\n").utf8)
        _ = try ImportRecordReader.records(body, layout: AdminExport.layout, maximumRecords: AdminExport.maximumLines) {
            number,
            record throws(UserImportError) in
            try reader.read(record, number: number, into: &batch)
        }
        try reader.finish()
        return batch
    }

    static func refusal(_ lines: [String], rules: AccountFieldRulesDouble = AccountFieldRulesDouble()) -> UserImportError? {
        do {
            _ = try parse(lines, rules: rules)
            return nil
        } catch {
            return error
        }
    }

    @Test func aUserLineBecomesItsRecord() throws {
        let batch = try Self.parse([Self.header, Self.ann, ""])
        let user = try #require(batch.users.first)
        #expect(batch.users.count == 1 && user.line == 2)
        #expect(user.record.id == [1] && user.record.name == "ann" && user.record.email == "ann@example.com" && user.record.emailVerified)
        #expect(AdminExport.timeText(user.record.createdAt) == "2026-03-01T12:00:00.250Z")
        #expect(batch.disabled[2] == .some(nil) && batch.metadata.isEmpty && batch.passwords.isEmpty)
    }

    @Test func theWrittenLineReadsBackToTheSameRecord() throws {
        let record = try #require(try Self.parse([Self.header, Self.ann]).users.first?.record)
        let written = String(decoding: AdminExport.line(AdminExport.User(record, metadata: nil)), as: UTF8.self)
        #expect(try Self.parse([Self.header, written]).users.first?.record == record)
    }

    @Test func theHeaderComesFirstAndNamesThisRelyingParty() {
        #expect(Self.refusal([Self.ann]) == UserImportError(.invalid, member: "version").onLine(1))
        #expect(Self.refusal([]) == UserImportError(.invalid, member: "version").onLine(1))
        let foreign = Self.header.replacingOccurrences(of: "example.com", with: "example.org")
        #expect(Self.refusal([foreign]) == UserImportError(.invalid, member: "relyingPartyId").onLine(1))
        let newer = Self.header.replacingOccurrences(of: #""version":1"#, with: #""version":2"#)
        #expect(Self.refusal([newer]) == UserImportError(.invalid, member: "version").onLine(1))
    }

    @Test func eachRefusalNamesItsLineAndMember() {
        #expect(Self.refusal([Self.header, "not json"])?.line == 2)
        #expect(Self.refusal([Self.header, #"{"type":"session"}"#]) == UserImportError(.invalid, member: "type").onLine(2))
        let unknown = Self.ann.replacingOccurrences(of: #""emailVerified":true"#, with: #""emailVerified":true,"role":"admin""#)
        #expect(Self.refusal([Self.header, unknown]) == UserImportError(.unknownMember, member: "role").onLine(2))
        let badID = Self.ann.replacingOccurrences(of: #""id":"AQ""#, with: #""id":"!!""#)
        #expect(Self.refusal([Self.header, badID]) == UserImportError(.invalid, member: "id").onLine(2))
        let missing = Self.ann.replacingOccurrences(of: #""username":"ann","#, with: "")
        #expect(Self.refusal([Self.header, missing]) == UserImportError(.invalid, member: "username").onLine(2))
        let long = String(repeating: " ", count: AdminExport.maximumLineBytes + 1) + "x"
        #expect(Self.refusal([Self.header, Self.ann, long])?.line == 3)
    }

    @Test func theAccountRulesDecideNamesAndAddressesInTheFilesOrder() {
        #expect(
            Self.refusal([Self.header, Self.ann], rules: .init(refused: ["ann"])) == UserImportError(.usernameRefused, member: "username").onLine(2)
        )
        #expect(
            Self.refusal([Self.header, Self.ann], rules: .init(refused: ["Ann"])) == UserImportError(.valueRefused, member: "displayName").onLine(2)
        )
        // The email is checked first, as the admin API checks it.
        let both = Self.ann.replacingOccurrences(of: "ann@example.com", with: "nowhere")
        #expect(Self.refusal([Self.header, both], rules: .init(refused: ["ann"])) == UserImportError(.valueRefused, member: "email").onLine(2))
        let later = Self.ann.replacingOccurrences(of: #""id":"AQ""#, with: #""id":"Ag""#).replacingOccurrences(of: #""ann""#, with: #""bob""#)
        #expect(Self.refusal([Self.header, Self.ann, later], rules: .init(refused: ["bob"]))?.line == 3)
        let external = Self.ann.replacingOccurrences(of: #""emailVerified":true"#, with: #""emailVerified":true,"externalId":"x""#)
        #expect(Self.refusal([Self.header, external], rules: .init(refused: ["x"])) == UserImportError(.invalid, member: "externalId").onLine(2))
        let metadata = Self.ann.replacingOccurrences(of: #""emailVerified":true"#, with: #""emailVerified":true,"metadata":[1]"#)
        #expect(Self.refusal([Self.header, metadata]) == UserImportError(.invalid, member: "metadata").onLine(2))
    }

    @Test func moreThanTheMostLinesIsRefused() {
        let lines = [Self.header] + Array(repeating: " ", count: AdminExport.maximumLines) + [""]
        #expect(Self.refusal(lines)?.line == AdminExport.maximumLines + 1)
    }

    @Test func aPasswordHashIsReadAsSignInReadsIt() {
        let hashed = Self.ann.replacingOccurrences(of: #""emailVerified":true"#, with: #""emailVerified":true,"passwordHash":"$1$md5$x""#)
        let refusal = Self.refusal([Self.header, hashed])
        #expect(refusal?.code == .invalid && refusal?.member == "passwordHash" && refusal?.line == 2)
    }
}
