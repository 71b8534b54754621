// Replay mode (fuzz/build.sh replay): no libFuzzer; every file named on the command line, or inside a folder named
// there, is passed once to the target's LLVMFuzzerTestOneInput. A crash or failed invariant stops the run.
import Foundation

@main
struct ReplayMain {
    static func main() {
        var files: [String] = []
        for argument in CommandLine.arguments.dropFirst() where !argument.hasPrefix("-") {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
                files += names.filter { !$0.hasPrefix(".") }.sorted().map { argument + "/" + $0 }
            } else {
                files.append(argument)
            }
        }
        let start = Date()
        for file in files {
            guard var input = FileManager.default.contents(atPath: file).map(Array.init) else { continue }
            if ProcessInfo.processInfo.environment["FUZZ_REPLAY_VERBOSE"] != nil { print("  \(file)") }
            if input.isEmpty { input = [] }
            input.withUnsafeBufferPointer { buffer in
                // An empty input still needs a valid pointer.
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(buffer.count, 1)) { copy in
                    _ = copy.initialize(fromContentsOf: buffer)
                    _ = test(UnsafePointer(copy.baseAddress!), buffer.count)
                }
            }
        }
        let name = URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent
        print(String(format: "%@: replayed %d inputs in %.2f s", name, files.count, Date().timeIntervalSince(start)))
    }
}
