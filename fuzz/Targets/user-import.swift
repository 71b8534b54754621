// Target `user-import`: the readers of user imports (module UserImport) — passkeyd's NDJSON (`AdminExport.Reader`, with
// `passwordHash`),
// a `firebase auth:export` file (with the project's hash parameters), Supabase's `auth.users` JSON and Auth0's export
// (JSON or NDJSON) — through `AdminService` into an in-memory store. The first byte chooses the format; the rest is the
// file. Every refusal must be a stable code, never a crash.
import ConfigurationFile
import CryptoCore
import Foundation
import RelyingPartyServer
import Storage
import UserImport

@testable import RelyingPartyServer

private let importConfiguration = try! ServerConfiguration(
    json: Data(#"{"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]}, "www": null}"#.utf8)
)

private let firebaseParameters = FirebaseHashParameters(
    signerKey: "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
    saltSeparator: "Bw==",
    rounds: 8,
    memoryCost: 1
)

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = bytes(data, size)
    let body = Array(input.dropFirst())
    guard
        let server = try? RelyingPartyServer(
            configuration: importConfiguration,
            store: InMemoryStore(),
            time: FixedTime(fixedNow),
            random: SystemRandom(),
            enumerationSecret: [1]
        )
    else { fuzzFailure("the server does not start") }
    let admin = server.controllers.admin.service
    let report: AdminImportReport
    do {
        switch input[0] % 4 {
        case 0: report = try admin.importFile(body, format: .export)
        case 1: report = try admin.importFile(body, format: .firebase(input[0] & 4 == 0 ? nil : firebaseParameters))
        case 2: report = try admin.importFile(body, format: .supabase)
        default: report = try admin.importFile(body, format: .auth0)
        }
    } catch {
        guard !error.code.rawValue.isEmpty else { fuzzFailure("a refusal without a code") }
        return 0
    }
    guard report.users.created >= 0, report.passwords.created <= report.users.created + report.users.unchanged + report.users.updated else {
        fuzzFailure("more password hashes than users")
    }
    return 0
}
