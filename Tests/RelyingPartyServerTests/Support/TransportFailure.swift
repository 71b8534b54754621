/// A request that could not be carried out (not a server answer).
struct TransportFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
