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
        var sources = TrustMaterial.Sources()
        var metadataFile: String?
        var metadataRoot: String?
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--trust-anchors", "--metadata", "--metadata-root", "--authenticator-names":
                guard index + 1 < arguments.count else { return fail("\(arguments[index]) needs a path") }
                let source = TrustMaterial.Source(arguments[index + 1], key: arguments[index])
                switch arguments[index] {
                case "--trust-anchors": sources.trustAnchors = source
                case "--metadata": metadataFile = source.path
                case "--metadata-root": metadataRoot = source.path
                default: sources.authenticatorNames = source
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
        switch (metadataFile, metadataRoot) {
        case (let file?, let root?):
            sources.metadata = TrustMaterial.MetadataSource(
                blob: TrustMaterial.Source(file, key: "--metadata"),
                roots: TrustMaterial.Source(root, key: "--metadata-root")
            )
        case (_?, nil): return fail("--metadata needs --metadata-root PEM (the BLOB's signing roots, e.g. TrustAnchors/metadata)")
        case (nil, _?): return fail("--metadata-root goes with --metadata")
        case (nil, nil): break
        }
        let material: TrustMaterial
        let metadata: MetadataBLOB?
        do {
            material = try TrustMaterial.load(sources)
            metadata = try material.verifiedMetadata(at: Date(), policy: MetadataPolicy())
        } catch {
            return fail(error.description)
        }
        let runner = VerificationCaseRunner(
            additionalTrustAnchors: material.trustAnchors,
            metadata: metadata,
            authenticatorNames: material.authenticatorNames
        )
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
