import Foundation

// passkeyd-loadgen --port PORT [--connections N] [--seconds S] [--warm-up S]: end-to-end sign-in ceremonies
// against a passkeyd on 127.0.0.1 whose relying party is example.com / https://example.com.
// passkeyd-loadgen --mode soak --port PORT --server-pid PID [--connections N] [--seconds S] [--warm-up S]: a mixed
// load (registrations, logins, AASA, bad requests) with error counts, p99 latency and the server's memory.
var options: [String: String] = [:]
var arguments = Array(CommandLine.arguments.dropFirst())
while arguments.count >= 2, arguments[0].hasPrefix("--") {
    options[String(arguments[0].dropFirst(2))] = arguments[1]
    arguments.removeFirst(2)
}
let mode = options["mode"] ?? "ceremonies"
guard arguments.isEmpty, let port = options["port"].flatMap(Int.init), mode == "ceremonies" || mode == "soak",
      mode == "ceremonies" || options["server-pid"].flatMap(Int32.init) != nil else {
    FileHandle.standardError.write(Data("""
        usage: passkeyd-loadgen --port PORT [--connections N] [--seconds S] [--warm-up S]
               passkeyd-loadgen --mode soak --port PORT --server-pid PID [--connections N] [--seconds S] [--warm-up S]

        """.utf8))
    exit(2)
}
let connections = options["connections"].flatMap(Int.init) ?? 8
do {
    if mode == "soak" {
        let soak = SoakRun(
            port: port, serverProcessID: options["server-pid"].flatMap(Int32.init) ?? 0, connections: connections,
            warmUpSeconds: options["warm-up"].flatMap(Double.init) ?? 10, seconds: options["seconds"].flatMap(Double.init) ?? 60)
        if try !soak.run() { exit(1) }
    } else {
        let generator = LoadGenerator(
            port: port, connections: connections,
            warmUpSeconds: options["warm-up"].flatMap(Double.init) ?? 2, seconds: options["seconds"].flatMap(Double.init) ?? 10)
        try generator.run()
    }
} catch {
    FileHandle.standardError.write(Data("passkeyd-loadgen: \(error)\n".utf8))
    exit(1)
}
