import Foundation

// passkeyd: the executable only parses the command line and wires the pieces together.
let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
switch arguments.first {
case "verify":
    status = VerifyCommand(arguments: Array(arguments.dropFirst())).run()
case "serve":
    status = ServeCommand(arguments: Array(arguments.dropFirst()), environment: ProcessInfo.processInfo.environment).run()
case "healthcheck":
    status = HealthCheckCommand(arguments: Array(arguments.dropFirst()), environment: ProcessInfo.processInfo.environment).run()
case "migrate":
    status = MigrateCommand(arguments: Array(arguments.dropFirst())).run()
case "backup":
    status = BackupCommand(arguments: Array(arguments.dropFirst()), environment: ProcessInfo.processInfo.environment).run()
case "restore":
    status = RestoreCommand(arguments: Array(arguments.dropFirst()), environment: ProcessInfo.processInfo.environment).run()
case "apple":
    status = AppleCommand(arguments: Array(arguments.dropFirst())).run()
case "keys" where arguments.dropFirst().first == "admin-key":
    status = NewKeyCommand(arguments: Array(arguments.dropFirst(2)), kind: .admin).run()
case "admin":
    status = AdminCommand(arguments: Array(arguments.dropFirst())).run()
case "check-domain":
    status = CheckDomainCommand(arguments: Array(arguments.dropFirst())).run()
case "keys":
    status = KeysCommand(arguments: Array(arguments.dropFirst())).run()
case "verify-apple-token":
    status = VerifyAppleTokenCommand(arguments: Array(arguments.dropFirst())).run()
case "version", "--version":
    print("passkeyd \(Version.number)")
    status = 0
case "help", "--help", "-h", nil:
    print(Usage.text)
    status = arguments.isEmpty ? 2 : 0
default:
    FileHandle.standardError.write(Data("passkeyd: unknown command '\(arguments[0])'\n\n\(Usage.text)\n".utf8))
    status = 2
}
exit(status)
