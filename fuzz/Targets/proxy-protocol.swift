// Target `proxy-protocol`: HTTPServer.ProxyProtocolHeader, the reader of the PROXY protocol header (versions 1 and 2)
// a trusted load balancer puts before a connection's bytes. The input is the connection's first bytes. A header it
// accepts must lie within them and within the bound, name a 4- or 16-byte address, read the same without the bytes
// after it, and be incomplete one byte short.
import HTTPServer

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    let reading = ProxyProtocolHeader.read(input)
    switch reading {
    case .incomplete:
        guard input.count < ProxyProtocolHeader.maximumLength else { fuzzFailure("incomplete at the bound") }
    case .invalid:
        break
    case .header(let length, let client):
        guard length > 0, length <= input.count, length <= ProxyProtocolHeader.maximumLength else {
            fuzzFailure("a header's length lies outside the input")
        }
        if let client, client.bytes.count != 4 && client.bytes.count != 16 { fuzzFailure("a client address of \(client.bytes.count) bytes") }
        guard ProxyProtocolHeader.read(input.prefix(length)) == reading else { fuzzFailure("a header reads differently without what follows it") }
        guard ProxyProtocolHeader.read(input.prefix(length - 1)) == .incomplete else { fuzzFailure("a header one byte short is not incomplete") }
    }
    return 0
}
