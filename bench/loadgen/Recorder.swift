import Foundation

/// Writes replies of the server under load to a directory, each as `<name>.head` (status line and header fields) and
/// `<name>.body`: `bench/server/run.sh` makes a stand-in server answer the same requests with the same bytes, and
/// measures what those exchanges alone cost (the ceremony's CPU floor).
struct Recorder {
    let directory: String

    func record(_ name: String, _ reply: LoopbackHTTPClient.Reply) throws {
        let base = URL(fileURLWithPath: directory).appendingPathComponent(name)
        try Data(reply.head).write(to: base.appendingPathExtension("head"))
        try Data(reply.body).write(to: base.appendingPathExtension("body"))
    }
}
