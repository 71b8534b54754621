import Foundation
import HTTPEdge
import RelyingPartyServer
import UserImport

/// `passkeyd admin import`: the file read a piece at a time and written in batches of `--batch-size` users (one
/// transaction each) by the admin API's `AdminImporter`, so memory stays flat whatever the file's size; progress on
/// standard error (counts only). An import stopped half-way (killed, or refused at a line) is run again as it was:
/// the batches written before are found unchanged and the rest are written.
extension AdminCommand {
    /// The options that name the file of another system (the file of passkeyd's export is the positional).
    static let importFileOptions = ["--firebase", "--supabase", "--auth0"]
    /// The piece of the file read at a time.
    static let importPieceBytes = 1 << 20
    /// Progress is printed every so many batches.
    static let progressBatches = 10

    /// The file at `path`, opened: a regular file (a FIFO or a device could block or never end).
    static func importFile(_ path: String, _ line: ParsedCommandLine, usage: String) throws(CommandLineError) -> FileHandle {
        guard importFileOptions.filter({ line.value($0) != nil }).count <= 1 else {
            throw CommandLineError(.invalidArgument, "name one file: \(importFileOptions.joined(separator: ", ")) or FILE", usage: usage)
        }
        if let size = line.value("--batch-size"), !(Int(size).map(AdminImporter.batchSizes.contains) ?? false) {
            throw CommandLineError(
                .invalidArgument,
                "--batch-size must be a number from \(AdminImporter.batchSizes.lowerBound) to \(AdminImporter.batchSizes.upperBound)",
                usage: usage
            )
        }
        guard (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType == .typeRegular,
            let handle = FileHandle(forReadingAtPath: path)
        else { throw CommandLineError(.invalidArgument, "cannot read \(path) (a regular file)", usage: usage) }
        return handle
    }

    /// The format the options name (passkeyd's export when none does).
    static func importFormat(_ line: ParsedCommandLine) throws(ServerError) -> AdminImporter.Format {
        if line.value("--supabase") != nil { return .supabase }
        if line.value("--auth0") != nil { return .auth0 }
        guard line.value("--firebase") != nil else { return .export }
        // The project's password hash parameters, named as `firebase auth:import` takes them.
        let parameters = try ServerError.importing { () throws(UserImportError) -> FirebaseHashParameters? in
            try FirebaseHashParameters.given(
                signerKey: line.value("--hash-key"),
                saltSeparator: line.value("--salt-separator"),
                rounds: line.value("--rounds"),
                memoryCost: line.value("--mem-cost")
            )
        }
        return .firebase(parameters)
    }

    /// Imports the file `input` a piece at a time, in batches; the whole import's report.
    static func importFile(
        _ input: FileHandle?,
        format: AdminImporter.Format,
        line: ParsedCommandLine,
        admin: AdminService
    ) throws(ServerError) -> AdminImportReport {
        let batchSize = line.value("--batch-size").flatMap { Int($0) } ?? AdminImporter.defaultBatchSize
        var importer = AdminImporter(service: admin, format: format, batchSize: batchSize)
        var reported = 0
        do throws(ServerError) {
            while let input {
                let piece: Data
                do {
                    guard let read = try input.read(upToCount: importPieceBytes), !read.isEmpty else { break }
                    piece = read
                } catch {
                    throw ServerError(importing: UserImportError(.invalid, reason: "the file could not be read"))
                }
                try importer.read(Array(piece)[...])
                if importer.usersRead - reported >= progressBatches * batchSize {
                    reported = importer.usersRead
                    progress(importer, "")
                }
            }
            let report = try importer.finish()
            progress(importer, "")
            return report
        } catch {
            progress(importer, "; stopped: the users written are kept, and the same command imports the rest")
            throw error
        }
    }

    /// A line of progress on standard error: counts, never a user's data.
    private static func progress(_ importer: AdminImporter, _ note: String) {
        let users = importer.report.users
        let text =
            "passkeyd admin import: \(importer.usersRead) users read, \(users.total) written (\(users.created) created,"
            + " \(users.updated) updated, \(users.unchanged) unchanged), \(importer.skippedSoFar.count) skipped\(note)\n"
        FileHandle.standardError.write(Data(text.utf8))
    }
}
