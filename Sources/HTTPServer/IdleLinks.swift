/// A connection's place in one `IdleConnections` list: the next older one (weak: the list holds each connection
/// through the one before it) and the next newer one.
struct IdleLinks {
    var isMember = false
    weak var older: ConnectionState?
    var newer: ConnectionState?
}
