import CryptoCore
import Foundation
import Testing

@Suite("RFC 4648 §5 base64url without padding")
struct Base64URLTests {
    @Test func roundTripsEveryLengthAgainstFoundation() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Base64URL.encode(bytes)
            let reference = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(text == reference)
            #expect(Base64URL.decode(text) == bytes)
        }
    }

    /// `append` writes in place after what the buffer holds: the same text as `encode`, the prefix untouched.
    @Test func appendWritesAfterThePrefix() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var output = Array("header.".utf8)
            Base64URL.append(bytes, to: &output)
            #expect(output == Array(("header." + Base64URL.encode(bytes)).utf8))
        }
    }

    /// Outputs up to 1,024 bytes are built on the stack and copied, longer ones in the array itself: both sides of
    /// the limit decode, and refuse a bad character at the end, alike.
    @Test(arguments: [767, 768, 769, 1023, 1024, 1025, 1026, 4000])
    func decodesAndRefusesAlikeOnBothSidesOfTheStackLimit(length: Int) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let text = Base64URL.encode(bytes)
        #expect(Base64URL.decode(text) == bytes)
        #expect(Base64URL.decode(String(text.dropLast()) + "=") == nil)
        #expect(Base64URL.decode("*" + String(text.dropFirst())) == nil)
    }

    @Test(arguments: ["A", "AAAAA", "AA==", "AB", "AAB", "A+8", "A/8", "AA AA", "AA\nA", "é", "AAA=", "Zg=="])
    func refusesNonCanonicalOrForeignText(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test func acceptsCanonicalShortForms() {
        #expect(Base64URL.decode("") == [])
        #expect(Base64URL.decode("Zg") == Array("f".utf8))
        #expect(Base64URL.decode("Zm8") == Array("fo".utf8))
        #expect(Base64URL.decode("_-8") == [0xFF, 0xEF])
    }

    @Test func lenientDecodingAcceptsStandardAlphabetAndPadding() {
        #expect(Base64URL.decodeLenient("+/8=") == [0xFB, 0xFF])
        #expect(Base64URL.decodeLenient("Zm9v\nYmFy") == Array("foobar".utf8))
    }
}

@Suite("Comparing a text with the encoding of bytes")
struct Base64URLEncodingComparisonTests {
    @Test func matchesExactlyTheEncodingOfTheBytes() {
        for length in [0, 1, 2, 3, 31, 32, 33, 64] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Base64URL.encode(bytes)
            #expect(Base64URL.isEncoding(of: bytes, text))
            #expect(!Base64URL.isEncoding(of: bytes, text + "A"))
            if !text.isEmpty {
                #expect(!Base64URL.isEncoding(of: bytes, String(text.dropLast())))
                // The same length with one character changed, and padding, are both refused.
                #expect(!Base64URL.isEncoding(of: bytes, String(text.dropLast()) + (text.last == "A" ? "B" : "A")))
                #expect(!Base64URL.isEncoding(of: bytes, text + "=="))
            }
        }
        // The standard alphabet is not base64url: 0xFB 0xFF is "-_8", never "+/8".
        #expect(Base64URL.isEncoding(of: [0xFB, 0xFF], "-_8"))
        #expect(!Base64URL.isEncoding(of: [0xFB, 0xFF], "+/8"))
    }
}
