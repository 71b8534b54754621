import Foundation
import TestSupport

// passkeyd-test-device: the device side of the client libraries' tests (clients/swift), as a process they drive.
// It starts the Apple stand-in on loopback, writes the team's .p8 key where it is told, prints one JSON line
// ({"appleBaseURL", "keyID"}) and then answers one JSON line per command line read on standard input until it ends.
// See TestDevice.swift for the commands.

let arguments = CommandLine.arguments
guard arguments.count == 3, arguments[1] == "--p8" else {
    FileHandle.standardError.write(Data("usage: passkeyd-test-device --p8 PATH\n".utf8))
    exit(2)
}
do {
    let device = try TestDevice(p8Path: arguments[2])
    FileHandle.standardOutput.write(Data((device.greeting() + "\n").utf8))
    while let line = readLine(strippingNewline: true) {
        FileHandle.standardOutput.write(Data((device.answer(line) + "\n").utf8))
    }
} catch {
    FileHandle.standardError.write(Data("passkeyd-test-device: \(error)\n".utf8))
    exit(1)
}
