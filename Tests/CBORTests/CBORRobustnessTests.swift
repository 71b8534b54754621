import CBOR
import Testing

/// An input that makes a naive decoder allocate gigabytes, trap on a length, or recurse until the stack runs out.
struct Bomb: Sendable, CustomTestStringConvertible {
    let name: String
    let input: [UInt8]
    let code: CBORError.Code

    var testDescription: String { name }
}

let bombs: [Bomb] = [
    Bomb(name: "array of 2^32-ish elements (cbor_load allocates gigabytes)", input: [0x9A, 0x9A, 0x9A, 0x9A, 0x9A], code: .tooLarge),
    Bomb(name: "array of 2^64-1 elements", input: [0x9B] + [UInt8](repeating: 0xFF, count: 8), code: .tooLarge),
    Bomb(name: "map of 2^64-1 entries", input: [0xBB] + [UInt8](repeating: 0xFF, count: 8), code: .tooLarge),
    Bomb(name: "byte string of 2^64-1 bytes", input: [0x5B] + [UInt8](repeating: 0xFF, count: 8), code: .truncated),
    Bomb(name: "text string of 2^64-1 bytes", input: [0x7B] + [UInt8](repeating: 0xFF, count: 8), code: .truncated),
    Bomb(name: "byte string of 2^63 bytes", input: [0x5B, 0x80, 0, 0, 0, 0, 0, 0, 0, 0], code: .truncated),
    Bomb(name: "huge arrays inside an indefinite array", input: [0x9F] + [UInt8](repeating: 0x9A, count: 50), code: .tooLarge),
    Bomb(name: "100,000 nested arrays", input: [UInt8](repeating: 0x81, count: 100_000) + [0x00], code: .depthExceeded),
    Bomb(name: "100,000 nested indefinite arrays", input: [UInt8](repeating: 0x9F, count: 100_000), code: .depthExceeded),
    Bomb(name: "100,000 nested tags", input: [UInt8](repeating: 0xC1, count: 100_000) + [0x00], code: .depthExceeded),
    Bomb(name: "100,000 nested indefinite maps", input: [UInt8](repeating: 0xBF, count: 100_000), code: .depthExceeded),
    Bomb(name: "100,000 empty chunks", input: [0x5F] + [UInt8](repeating: 0x40, count: 100_000) + [0xFF], code: .tooManyItems),
    Bomb(
        name: "100,000 elements in an indefinite array",
        input: [0x9F] + [UInt8](repeating: 0x00, count: 100_000) + [0xFF],
        code: .tooManyItems
    ),
    Bomb(
        name: "array declaring 100,000 elements",
        input: [0x9A, 0x00, 0x01, 0x86, 0xA0] + [UInt8](repeating: 0x00, count: 100_000),
        code: .tooManyItems
    ),
    Bomb(name: "100,000 items in a row", input: [UInt8](repeating: 0x00, count: 100_000), code: .trailingBytes),
    Bomb(name: "100,000 breaks", input: [UInt8](repeating: 0xFF, count: 100_000), code: .malformed),
]

@Suite struct CBORRobustnessTests {
    let decoder = CBORDecoder()

    @Test(arguments: bombs)
    func knownBombsFailCleanly(bomb: Bomb) {
        #expect(errorCode(bomb.input) == bomb.code)
    }

    @Test func everyProperPrefixOfAValidItemFails() {
        var generator = SeededGenerator(seed: 0x5EED_0001)
        for _ in 0..<300 {
            let encoding = CBOREncoder.encode(.random(depth: 4, using: &generator))
            for length in 0..<encoding.count {
                let code = errorCode(Array(encoding[..<length]))
                #expect(code == .truncated || code == .tooLarge || code == .empty, "prefix \(length) of \(hexString(encoding))")
            }
        }
    }

    @Test func randomBytesDecodeOrThrow() {
        var generator = SeededGenerator(seed: 0x5EED_0002)
        for _ in 0..<3000 {
            let length = Int.random(in: 0...48, using: &generator)
            let input = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            decodeOrThrow(input)
        }
    }

    /// Valid encodings with one to three bytes changed, inserted or removed: close to valid, so they reach deep into the decoder.
    @Test func mutatedEncodingsDecodeOrThrow() {
        var generator = SeededGenerator(seed: 0x5EED_0003)
        let interesting: [UInt8] = [
            0x00, 0x18, 0x1B, 0x1F, 0x40, 0x5B, 0x5F, 0x60, 0x7F, 0x80, 0x9B, 0x9F, 0xA0, 0xBB, 0xBF, 0xC0, 0xDB, 0xF8, 0xF9, 0xFB, 0xFF,
        ]
        for _ in 0..<3000 {
            var input = CBOREncoder.encode(.random(depth: 4, using: &generator))
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let index = Int.random(in: 0...input.count, using: &generator)
                let byte =
                    Bool.random(using: &generator) ? interesting.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0 where index < input.count:
                    input[index] = byte
                case 1 where index < input.count:
                    input.remove(at: index)
                default:
                    input.insert(byte, at: index)
                }
            }
            decodeOrThrow(input)
        }
    }

    /// `decode` either returns a value or throws a `CBORError` (typed throws make anything else impossible);
    /// whatever it returns must survive an encode–decode round trip.
    private func decodeOrThrow(_ input: [UInt8]) {
        do {
            let value = try decoder.decode(input)
            let reencoded = CBOREncoder.encode(value)
            #expect(throws: Never.self, "\(hexString(input))") { try decoder.decode(reencoded) }
            let (_, bytesRead) = try decoder.decodeFirst(input[...])
            #expect(bytesRead == input.count)
        } catch {
            #expect(error.code.rawValue.hasPrefix("cbor."))
        }
    }
}
