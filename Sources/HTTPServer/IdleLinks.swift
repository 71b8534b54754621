/// A connection's place in one `IdleConnections` list: the next older one and the next newer one. Both strong: the
/// list holds its members, and every member leaves it (which clears its links and its neighbours') before it can go.
/// No weak reference: one would give every connection a side table, which makes each of its retains and releases take
/// the runtime's slow path (most of a well-known file's CPU, in a profile of the server).
struct IdleLinks {
    var isMember = false
    var older: ConnectionState?
    var newer: ConnectionState?
}
