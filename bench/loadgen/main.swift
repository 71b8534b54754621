import Foundation

// passkeyd-loadgen --port PORT [--connections N] [--seconds S] [--warm-up S]: end-to-end sign-in ceremonies
// against a passkeyd on 127.0.0.1 whose relying party is example.com / https://example.com.
var options: [String: String] = [:]
var arguments = Array(CommandLine.arguments.dropFirst())
while arguments.count >= 2, arguments[0].hasPrefix("--") {
    options[String(arguments[0].dropFirst(2))] = arguments[1]
    arguments.removeFirst(2)
}
guard arguments.isEmpty, let port = options["port"].flatMap(Int.init) else {
    FileHandle.standardError.write(Data("usage: passkeyd-loadgen --port PORT [--connections N] [--seconds S] [--warm-up S]\n".utf8))
    exit(2)
}
let generator = LoadGenerator(
    port: port, connections: options["connections"].flatMap(Int.init) ?? 8,
    warmUpSeconds: options["warm-up"].flatMap(Double.init) ?? 2, seconds: options["seconds"].flatMap(Double.init) ?? 10)
do {
    try generator.run()
} catch {
    FileHandle.standardError.write(Data("passkeyd-loadgen: \(error)\n".utf8))
    exit(1)
}
