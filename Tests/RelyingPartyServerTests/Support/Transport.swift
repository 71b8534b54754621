/// How a test reaches the server: straight through `handle` or over a real HTTPS connection.
protocol Transport {
    func send(_ method: String, _ path: String, body: [UInt8]?, headers: [(String, String)]) throws -> ServerReply
}
