import CryptoCore
import Foundation
import RelyingPartyServer
import WebAuthnCore
import WebAuthnVectors

/// `passkeyd verify`: judges test-vector-schema cases offline and prints one JSON line per case.
struct VerifyCommand {
    let arguments: [String]

    func run() -> Int32 {
        var inputPath: String?
        var anchorDirectory: String?
        var metadataFile: String?
        var metadataRoot = AttestationSettings.shippedMetadataRoots
        var namesFile: String? =
            FileManager.default.fileExists(atPath: AttestationSettings.shippedNamesFile) ? AttestationSettings.shippedNamesFile : nil
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--trust-anchors":
                guard index + 1 < arguments.count else { return fail("--trust-anchors needs a directory") }
                anchorDirectory = arguments[index + 1]
                index += 2
            case "--metadata", "--metadata-root", "--authenticator-names":
                guard index + 1 < arguments.count else { return fail("\(arguments[index]) needs a path") }
                switch arguments[index] {
                case "--metadata": metadataFile = arguments[index + 1]
                case "--metadata-root": metadataRoot = arguments[index + 1]
                default: namesFile = arguments[index + 1]
                }
                index += 2
            case let argument where argument.hasPrefix("--"):
                return fail("unknown option \(argument)")
            case let argument:
                guard inputPath == nil else { return fail("only one input file may be given") }
                inputPath = argument
                index += 1
            }
        }
        let data: Data
        if let inputPath, inputPath != "-" {
            guard let contents = FileManager.default.contents(atPath: inputPath) else { return fail("cannot read \(inputPath)") }
            data = contents
        } else {
            data = FileHandle.standardInput.readDataToEndOfFile()
        }
        let cases: [VerificationCase]
        do {
            cases = try Self.decodeCases(data)
        } catch {
            return fail("input is not a case, an array of cases or {\"cases\": [...]} (\(Self.describe(error)))")
        }
        var anchors: [X509Certificate] = []
        if let anchorDirectory {
            do {
                anchors = try TrustAnchorDirectory.load(anchorDirectory)
            } catch {
                return fail(error.reason)
            }
        }
        var metadata: MetadataBLOB?
        if let metadataFile {
            guard let text = try? String(contentsOfFile: metadataFile, encoding: .utf8) else { return fail("cannot read \(metadataFile)") }
            do {
                let roots = try TrustAnchorDirectory.loadFileOrFolder(metadataRoot)
                metadata = try MetadataBLOB(compactJWS: text, trustedRoots: roots, at: Date())
            } catch let error as CryptoError {
                return fail("--metadata-root: \(error.reason)")
            } catch let error as WebAuthnError {
                return fail("--metadata: \(error.code): \(error.reason)")
            } catch {
                return fail("--metadata: \(error)")
            }
        }
        var names = AuthenticatorNameList()
        if let namesFile {
            guard let data = FileManager.default.contents(atPath: namesFile) else { return fail("cannot read \(namesFile)") }
            do {
                names = try AuthenticatorNameList(json: Array(data))
            } catch {
                return fail("\(namesFile): \(error.reason)")
            }
        }
        let runner = VerificationCaseRunner(additionalTrustAnchors: anchors, metadata: metadata, authenticatorNames: names)
        for testCase in cases {
            FileHandle.standardOutput.write(Data((runner.run(testCase).jsonLine + "\n").utf8))
        }
        return 0
    }

    static func decodeCases(_ data: Data) throws -> [VerificationCase] {
        let decoder = JSONDecoder()
        let shape = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        if shape is [Any] { return try decoder.decode([VerificationCase].self, from: data) }
        if let object = shape as? [String: Any], object["cases"] != nil { return try decoder.decode(CaseList.self, from: data).cases }
        return [try decoder.decode(VerificationCase.self, from: data)]
    }

    private struct CaseList: Decodable {
        let cases: [VerificationCase]
    }

    private static func describe(_ error: any Error) -> String {
        guard let decodingError = error as? DecodingError else { return "unreadable JSON" }
        switch decodingError {
        case .keyNotFound(let key, let context):
            return "missing \((context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: "."))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "bad value at \(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        @unknown default:
            return "unreadable JSON"
        }
    }

    private func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("passkeyd verify: \(message)\n".utf8))
        return 2
    }
}
