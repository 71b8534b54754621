import Foundation

// passkeyd-loadgen --port PORT[,PORT...] [--connections N] [--seconds S] [--warm-up S] [--server-pid PID] [--passkeys N]
// [--record-replies DIR] [--rate R]:
// end-to-end sign-in ceremonies (with N passkeys of N accounts, worker i signing in with passkey i mod N; one by default) against passkeyd on 127.0.0.1 whose relying party is example.com / https://example.com; with
// --server-pid (one port), also the server's CPU time per ceremony against one raw ES256 verify. With several ports (the
// option repeated or a comma list), the nodes of one deployment sharing one database: connections are spread over
// them round-robin, and each ceremony takes its options from one node and posts its verification to the next. With
// --record-replies, the replies of the first registration and of one sign-in are written to DIR first (`Recorder`);
// with --rate, the connections together start at most R ceremonies a second.
// passkeyd-loadgen --mode soak --port PORT --server-pid PID [--connections N] [--seconds S] [--warm-up S]: a mixed
// load (registrations, logins, AASA, bad requests) with error counts, p99 latency and the server's memory.
// passkeyd-loadgen --mode apple-stream --port PORT --audience BUNDLE_ID [--connections N] [--seconds S] [--interval S]:
// Sign in with Apple requests whose tokens name an unknown key, one every S seconds per connection (the stall
// benchmark's disturbance), answers counted by status.
// passkeyd-loadgen --mode attack --port PORT [--connections N] [--rate R] [--addresses N] [--per-connection N]
// [--seconds S] [--provider NAME --issuer URL --audience ID] [--password-users N --password-prefix P] [--victims FILE]
// [--kinds assertion,idtoken,password]: a flood of bad assertions, ID tokens naming unknown keys and password guesses
// (or only the kinds listed) from many loopback addresses, until SIGTERM (`AttackFlood`). --credentials-out FILE (ceremonies): the registered passkeys, for --victims.
var options: [String: String] = [:]
var portTexts: [Substring] = []
var arguments = Array(CommandLine.arguments.dropFirst())
while arguments.count >= 2, arguments[0].hasPrefix("--") {
    let name = String(arguments[0].dropFirst(2))
    if name == "port" || name == "ports" {
        portTexts += arguments[1].split(separator: ",", omittingEmptySubsequences: false)
    } else {
        options[name] = arguments[1]
    }
    arguments.removeFirst(2)
}
let mode = options["mode"] ?? "ceremonies"
let ports = portTexts.compactMap { Int($0) }.filter { (1...65_535).contains($0) }
guard arguments.isEmpty, !ports.isEmpty, ports.count == portTexts.count, ["ceremonies", "soak", "apple-stream", "attack"].contains(mode),
    mode != "attack" || ports.count == 1,
    mode != "soak" || (ports.count == 1 && options["server-pid"].flatMap(Int32.init) != nil),
    mode != "apple-stream" || (ports.count == 1 && options["audience"] != nil)
else {
    FileHandle.standardError.write(
        Data(
            """
            usage: passkeyd-loadgen --port PORT[,PORT...] [--connections N] [--seconds S] [--warm-up S] [--server-pid PID] [--passkeys N]
                                    [--record-replies DIR] [--rate R]
                   passkeyd-loadgen --mode soak --port PORT --server-pid PID [--connections N] [--seconds S] [--warm-up S]
                   passkeyd-loadgen --mode apple-stream --port PORT --audience BUNDLE_ID [--connections N] [--seconds S] [--interval S]
                   passkeyd-loadgen --mode attack --port PORT [--connections N] [--rate R] [--addresses N] [--per-connection N] [--seconds S]
                                    [--provider NAME --issuer URL --audience ID] [--password-users N --password-prefix P] [--victims FILE]
                                    [--kinds assertion,idtoken,password]
            --port may be repeated; --ports is the same option.

            """.utf8
        )
    )
    exit(2)
}
let connections = options["connections"].flatMap(Int.init) ?? 8
let attackKinds = (options["kinds"] ?? "assertion,idtoken,password").split(separator: ",").map(AttackFlood.Kind.init(option:))
guard !attackKinds.isEmpty, !attackKinds.contains(nil) else {
    FileHandle.standardError.write(Data("passkeyd-loadgen: --kinds lists assertion, idtoken or password, comma-separated\n".utf8))
    exit(2)
}
do {
    if mode == "soak" {
        let soak = SoakRun(
            port: ports[0],
            serverProcessID: options["server-pid"].flatMap(Int32.init) ?? 0,
            connections: connections,
            warmUpSeconds: options["warm-up"].flatMap(Double.init) ?? 10,
            seconds: options["seconds"].flatMap(Double.init) ?? 60
        )
        if try !soak.run() { exit(1) }
    } else if mode == "apple-stream" {
        try AppleStream(
            port: ports[0],
            connections: connections,
            seconds: options["seconds"].flatMap(Double.init) ?? 10,
            interval: options["interval"].flatMap(Double.init) ?? 0.1,
            audience: options["audience"] ?? ""
        ).run()
    } else if mode == "attack" {
        try AttackFlood(
            port: ports[0],
            connections: options["connections"].flatMap(Int.init) ?? 32,
            rate: max(1, options["rate"].flatMap(Double.init) ?? 1200),
            addresses: max(1, min(65_000, options["addresses"].flatMap(Int.init) ?? 1024)),
            requestsPerConnection: max(1, options["per-connection"].flatMap(Int.init) ?? 50),
            seconds: options["seconds"].flatMap(Double.init) ?? 3600,
            provider: options["provider"] ?? "corp",
            issuer: options["issuer"] ?? "http://127.0.0.1",
            audience: options["audience"] ?? "passkeyd",
            passwordUsers: max(0, options["password-users"].flatMap(Int.init) ?? 0),
            passwordPrefix: options["password-prefix"] ?? "bench-password-",
            victimsFile: options["victims"],
            kinds: attackKinds.compactMap { $0 }
        ).run()
    } else {
        var generator = LoadGenerator(
            ports: ports,
            connections: connections,
            warmUpSeconds: options["warm-up"].flatMap(Double.init) ?? 2,
            seconds: options["seconds"].flatMap(Double.init) ?? 10
        )
        generator.passkeys = max(1, min(1024, options["passkeys"].flatMap(Int.init) ?? 1))
        generator.recordingDirectory = options["record-replies"]
        generator.credentialsFile = options["credentials-out"]
        generator.pacedRate = options["rate"].flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil }
        if ports.count == 1, let serverProcessID = options["server-pid"].flatMap(Int32.init) {
            generator.serverCPU = ProcessCPUTime(processID: serverProcessID)
        }
        try generator.run()
    }
} catch {
    FileHandle.standardError.write(Data("passkeyd-loadgen: \(error)\n".utf8))
    exit(1)
}
