/// One client address's connections on one event loop: its idle ones and those whose request is still arriving, oldest
/// first, and how many of its connections the loop holds. A connection keeps its address's entry from its admission to
/// its close, so that a request moves it between the lists without looking its address up; the loop drops the entry
/// when the address's last connection closes. Used on the loop's thread.
final class AddressConnections {
    let address: PeerAddress
    /// Its connections with no request in progress, oldest idle first.
    let idle = IdleConnections(.address)
    /// Its connections whose request is still arriving, oldest request first.
    let incomplete = IdleConnections(.addressIncomplete)
    /// Its connections admitted on the loop and not closed yet.
    var count = 0

    init(_ address: PeerAddress) {
        self.address = address
    }
}
