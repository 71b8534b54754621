import Foundation

/// `passkeyd serve`: arrives with the server.
struct ServeCommand {
    let arguments: [String]

    func run() -> Int32 {
        FileHandle.standardError.write(Data("passkeyd serve: not built yet\n".utf8))
        return 2
    }
}
