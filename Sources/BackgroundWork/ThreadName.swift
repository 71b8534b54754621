import Foundation

/// Names the calling thread as the system's tools show it (`top -H`, `ps -L`, `perf`). Foundation's setter reaches the
/// system only when called on the thread itself (a name set before `start` does not), and Linux refuses a name of more
/// than 15 bytes: the first 15 are kept.
enum ThreadName {
    static func setCurrent(_ name: String) {
        Thread.current.name = String(decoding: name.utf8.prefix(15), as: UTF8.self)
    }
}
