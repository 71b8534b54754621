import Foundation
import Testing

@testable import Storage

/// The stored transports read back: the plain text `transportsJSON()` writes without a decoder, anything else through
/// `JSONDecoder`, and both give what the decoder gives.
@Suite struct CredentialTransportsTests {
    static func decoded(_ text: String) -> [String]? { try? JSONDecoder().decode([String].self, from: Data(text.utf8)) }

    @Test func thePlainTextIsReadAsTheDecoderReadsIt() {
        for transports in [[], ["internal"], ["hybrid", "internal"], ["usb", "nfc", "ble", "smart-card", "x9"]] {
            let text = String(decoding: try! JSONEncoder().encode(transports), as: UTF8.self)
            #expect(CredentialRecord.plainTransports(Array(text.utf8)) == transports, "\(text)")
            #expect(CredentialRecord.transports(json: Array(text.utf8)) == transports)
        }
    }

    @Test(arguments: [
        #"[ "usb" ]"#, #"["us\"b"]"#, #"["a","b",]"#, #"[,"a"]"#, #"["a""b"]"#, #"["é"]"#, #"["a\u0062"]"#, #"["a"#, #"[""]"#,
        #"[1]"#, #"{}"#, #"""#, "", "[", "]", #"["a",1]"#, #"[null]"#, #"["a"] "#, #"["a" ,"b"]"#,
    ])
    func anyOtherTextIsTheDecodersToRead(_ text: String) {
        let plain = CredentialRecord.plainTransports(Array(text.utf8))
        // The plain reading never disagrees with the decoder: it reads the text the same way or leaves it to it.
        #expect(plain == nil || plain == Self.decoded(text), "\(text)")
        #expect(CredentialRecord.transports(json: Array(text.utf8)) == Self.decoded(text), "\(text)")
    }
}
