import Foundation
import TestSupport
import Testing
import WebAuthnCore
import WebAuthnVectors

/// Every case of every file in TestVectors/ through the public API: the verdict must equal `expect.ok`, and the
/// decoded fields `expect` names must match. Cases that may not pass yet are listed in `PendingVectors`, by id,
/// each with its reason.
@Suite struct TestVectorTests {
    static let files: [TestVectorFile] = (try? TestVectorFile.all()) ?? []

    @Test func vectorFilesArePresent() {
        #expect(Self.files.count == 6)
        #expect(Self.files.reduce(0) { $0 + $1.cases.count } == 182)
    }

    @Test(arguments: files.map(\.name))
    func everyCaseAgrees(file name: String) throws {
        let file = try #require(Self.files.first { $0.name == name })
        let runner = VerificationCaseRunner()
        for testCase in file.cases {
            let expect = try #require(file.expectations[testCase.id])
            let outcome = runner.run(testCase)
            if let pending = PendingVectors.reasons[testCase.id] {
                // A pending case must still fail closed, and with the error its reason names; one without an
                // error is a peer-policy rejection that passkeyd, following the spec, accepts.
                #expect(outcome.ok == (pending.expectedError == nil), "pending case \(testCase.id): ok is \(outcome.ok)")
                #expect(
                    outcome.error == pending.expectedError?.rawValue,
                    "pending case \(testCase.id): \(outcome.error ?? "ok") \(outcome.reason ?? "")"
                )
                continue
            }
            #expect(.bool(outcome.ok) == expect["ok"], "\(testCase.id): got \(outcome.ok) \(outcome.error ?? "") \(outcome.reason ?? "")")
            guard outcome.ok else { continue }
            let decoded: [String: ExpectedValue?] = [
                "fmt": outcome.fmt.map(ExpectedValue.string), "credentialId": outcome.credentialId.map(ExpectedValue.string),
                "signCount": outcome.signCount.map { .int(Int($0)) }, "alg": outcome.alg.map(ExpectedValue.int),
                "aaguid": outcome.aaguid.map(ExpectedValue.string), "userVerified": outcome.userVerified.map(ExpectedValue.bool),
                "backupEligible": outcome.backupEligible.map(ExpectedValue.bool), "backupState": outcome.backupState.map(ExpectedValue.bool),
            ]
            for (field, value) in decoded where expect[field] != nil {
                #expect(
                    value == expect[field],
                    "\(testCase.id): \(field) is \(String(describing: value)), expected \(String(describing: expect[field]))"
                )
            }
        }
    }
}
