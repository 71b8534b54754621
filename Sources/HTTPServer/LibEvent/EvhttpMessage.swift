import CLibEvent

/// Copies the headers and the body of a request or reply out of libevent's `evhttp_request`, for the server's
/// requests and the client's replies alike.
enum EvhttpMessage {
    /// Every input header field, in order, repeated ones included.
    static func headers(_ message: UnsafeMutablePointer<evhttp_request>) -> HTTPHeaders {
        var headers = HTTPHeaders()
        var field = evhttp_request_get_input_headers(message)?.pointee.tqh_first
        while let current = field {
            headers.add(String(cString: current.pointee.key), String(cString: current.pointee.value))
            field = current.pointee.next.tqe_next
        }
        return headers
    }

    /// The input body, drained from libevent's buffer.
    static func body(_ message: UnsafeMutablePointer<evhttp_request>) -> [UInt8] {
        guard let input = evhttp_request_get_input_buffer(message) else { return [] }
        let length = evbuffer_get_length(input)
        guard length > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: length) { bytes, initialized in
            initialized = max(0, Int(evbuffer_remove(input, bytes.baseAddress, length)))
        }
    }
}
