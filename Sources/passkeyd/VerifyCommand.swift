import ConfigurationFile
import CryptoCore
import Foundation
import RelyingPartyServer
import WebAuthnCore
import WebAuthnVectors

/// `passkeyd verify`: judges test-vector-schema cases offline and prints one JSON line per case.
struct VerifyCommand {
    let arguments: [String]

    static let syntax = CommandLineSyntax(
        usage: "passkeyd verify [--trust-anchors DIR] [--metadata BLOB --metadata-root PEM] [--authenticator-names JSON] [FILE]",
        options: ["--trust-anchors", "--metadata", "--metadata-root", "--authenticator-names"],
        maximumPositionals: 1
    )

    func run() -> Int32 {
        let inputPath: String?
        var sources = TrustMaterial.Sources()
        do {
            let line = try Self.syntax.parse(arguments)
            inputPath = line.positionals.first
            let source = { (option: String) in line.value(option).map { TrustMaterial.Source($0, key: option) } }
            sources.trustAnchors = source("--trust-anchors")
            sources.authenticatorNames = source("--authenticator-names")
            switch (source("--metadata"), source("--metadata-root")) {
            case (let blob?, let roots?): sources.metadata = TrustMaterial.MetadataSource(blob: blob, roots: roots)
            case (_?, nil):
                throw CommandLineError(
                    .missingOption,
                    "--metadata needs --metadata-root PEM (the BLOB's signing roots, e.g. TrustAnchors/metadata)",
                    usage: Self.syntax.usage
                )
            case (nil, _?): throw CommandLineError(.invalidArgument, "--metadata-root goes with --metadata", usage: Self.syntax.usage)
            case (nil, nil): break
            }
        } catch {
            return fail("\(error)")
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
